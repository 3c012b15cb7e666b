package mcpapi

// DecideInput are cwac_decide's arguments (internal/decide's Request
// fields, by the same names), as the MCP server takes them and kubectl cwac
// decide sends them.
type DecideInput struct {
	IssueID      string `json:"issue_id,omitempty" jsonschema:"an issue's id (32 hexadecimal digits, cwac_issue_history's fingerprint); or give rule"`
	Rule         string `json:"rule,omitempty" jsonschema:"an axe rule id (color-contrast) or a CWAC audit's name (focus_indicator_audit); or give issue_id"`
	Organisation string `json:"organisation,omitempty" jsonschema:"the organisation, with rule (an issue names its own)"`
	Pages        string `json:"pages,omitempty" jsonschema:"with rule: only the pages under this http(s) address, at a path boundary"`
	Kind         string `json:"kind" jsonschema:"FalsePositive, Accepted or WontFix"`
	Reason       string `json:"reason" jsonschema:"why, for whoever reviews the decision (at most 2000 characters)"`
	ReviewBy     string `json:"review_by,omitempty" jsonschema:"when the decision ends, a later day (YYYY-MM-DD, or an RFC 3339 time); required for Accepted"`
}

// DecideOutput is cwac_decide's answer.
type DecideOutput struct {
	Decision     string `json:"decision" jsonschema:"the CwacIssueDecision made: namespace/name"`
	Organisation string `json:"organisation"`
	DecidedBy    string `json:"decided_by"`
	Message      string `json:"message"`
}
