// Package mcpapi holds the arguments and answers of the MCP server's tools
// that the kubectl plugin reads too, so that the server writes and the plugin
// reads the same Go types rather than a copy that could drift. It imports no
// server code (the plugin stays free of the MCP SDK and controller-runtime):
// only the pure packages whose types the answers carry.
package mcpapi

import (
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// CompareInput are cwac_compare_scans's arguments.
type CompareInput struct {
	ScanID     string `json:"scan_id" jsonschema:"the scan to compare: a scan's ID, or a results directory listed by cwac_list_scans"`
	BaselineID string `json:"baseline_id,omitempty" jsonschema:"the earlier scan to compare with (default: the scan's spec.baseline)"`
	Change     string `json:"change,omitempty" jsonschema:"which rows to list: new (default), fixed, unchanged or unstable"`
	Impact     string `json:"impact,omitempty" jsonschema:"only rows of this axe impact: critical, serious, moderate or minor"`
	Limit      int    `json:"limit,omitempty" jsonschema:"most rows to return (default 50)"`
	Offset     int    `json:"offset,omitempty" jsonschema:"matching rows to skip first, for paging"`
}

// Where a comparison came from (CompareOutput.Source).
const (
	SourceDiffFile = results.DiffFile // the scan pod's diff.json
	SourceCompared = "results"        // compared now from both scans' CSVs
)

// CompareOutput is cwac_compare_scans's answer.
type CompareOutput struct {
	ScanID     string             `json:"scan_id"`
	BaselineID string             `json:"baseline_id"`
	Source     string             `json:"source" jsonschema:"diff.json (written by the scan pod) or results (compared now from both scans' CSVs)"`
	Counts     results.DiffCounts `json:"counts" jsonschema:"new, fixed, unchanged and unstable issues; by impact; the 50 organisations with most new"`
	Totals     diff.Totals        `json:"totals" jsonschema:"each scan's issues: baseline = fixed + unchanged + unstable_baseline, scan = new + unchanged + unstable_current"`
	ByRule     []diff.RuleChange  `json:"by_rule" jsonschema:"the 50 rules with most new issues"`
	Change     string             `json:"change"`
	Impact     string             `json:"impact,omitempty"`
	TotalRows  int                `json:"total_rows" jsonschema:"rows of this change (and impact)"`
	Returned   int                `json:"returned_rows"`
	Rows       []diff.Row         `json:"rows"`
	Truncated  bool               `json:"truncated,omitempty"`
	Note       string             `json:"note,omitempty"`
}
