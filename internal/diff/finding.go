package diff

// Finding is one issue of one organisation as a scan, its comparison or
// the history sees it: what a decision may cover (internal/decision).
type Finding struct {
	Namespace, Organisation string
	// ID is the issue's id (zero for audits whose rows have none) and
	// Element ElementHash of its HTML now.
	ID      IssueID
	Element uint64
	// Rule is the rule as people and the history name it (an axe rule
	// id, or the name of one of CWAC's own audits) and URL the page's
	// address.
	Rule, URL string
}
