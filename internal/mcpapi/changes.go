package mcpapi

// ScanChangesInput are cwac_scan_changes' arguments.
type ScanChangesInput struct {
	ScanID string `json:"scan_id" jsonschema:"the scan (its CwacScan name) whose changes to issues to list, as the issue history recorded it"`
	After  int64  `json:"after,omitempty" jsonschema:"the previous page's next, to continue (default: the first page)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most changes to return (default 50, at most 500)"`
}

// ScanChangesOutput is cwac_scan_changes' answer.
type ScanChangesOutput struct {
	Namespace string       `json:"namespace"`
	Scan      string       `json:"scan"`
	Returned  int          `json:"returned"`
	Changes   []ScanChange `json:"changes" jsonschema:"in the order of the issues' ids (a stable order for paging)"`
	// Next is the After of the next page; absent on the last.
	Next      int64  `json:"next,omitempty" jsonschema:"give it as after for the next page; absent when this is the last"`
	Truncated bool   `json:"truncated,omitempty" jsonschema:"fewer changes than asked, to keep the answer under the server's cap; continue with next"`
	Note      string `json:"note,omitempty"`
}

// ScanChange is one change a scan made to one issue.
type ScanChange struct {
	Change string       `json:"change" jsonschema:"opened (first seen), fixed, page not scanned (its page was not visited) or reopened"`
	Issue  HistoryIssue `json:"issue" jsonschema:"the issue as it stands now: a later scan may have changed it again"`
}
