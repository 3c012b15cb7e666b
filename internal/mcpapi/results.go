package mcpapi

// ResultsInput are cwac_get_results's arguments.
type ResultsInput struct {
	ScanID     string `json:"scan_id" jsonschema:"the scan's ID"`
	AuditType  string `json:"audit_type,omitempty" jsonschema:"one audit's results, e.g. axe_core_audit, reflow_audit, focus_indicator_audit (default: all audits)"`
	Impact     string `json:"impact,omitempty" jsonschema:"only rows of this axe impact: critical, serious, moderate or minor"`
	IssuesOnly bool   `json:"issues_only,omitempty" jsonschema:"only rows that are issues (num_issues > 0)"`
	Limit      int    `json:"limit,omitempty" jsonschema:"most rows to return (default 100)"`
	Offset     int    `json:"offset,omitempty" jsonschema:"matching rows to skip first, for paging"`
}

// ResultsOutput is cwac_get_results's answer.
type ResultsOutput struct {
	ScanID       string `json:"scan_id"`
	AuditType    string `json:"audit_type"`
	TotalResults int    `json:"total_results" jsonschema:"rows matching the filters"`
	// TotalIsLowerBound: results without a row index are read only up to
	// the page, so the total counts the rows seen, and there are more.
	TotalIsLowerBound bool             `json:"total_is_lower_bound,omitempty" jsonschema:"true when total_results counts only the rows read so far: there are at least that many"`
	ReturnedResults   int              `json:"returned_results"`
	Results           []map[string]any `json:"results"`
	Truncated         bool             `json:"truncated,omitempty"`
	Note              string           `json:"note,omitempty"`
}
