package results

import (
	"encoding/json"
	"fmt"

	"github.com/a11y-dev/cwac-operator/internal/jsonlimit"
)

// Budgets for the JSON files the runner writes beside the results and the
// MCP server and the report read back. Scan pods write the results volume,
// and they run a browser on arbitrary websites, so a file there may be
// hostile; its size alone does not bound what decoding it costs (a 4 MiB
// summary.json of "{}," is 1.4 million structs). Each file is counted
// first (jsonlimit, which keeps nothing) and decoded only within its
// budget. ValueCost (64 bytes a value) is at least what a value of these
// files decodes to, so MaxDecoded bounds the decoded structs; the values
// limits leave far more room than the runner ever writes.
var (
	// SummaryLimits bound summary.json: 9 values a base URL (a scan has
	// at most 1000; results CWAC wrote by hand may have tens of thousands).
	SummaryLimits = jsonlimit.Limits{MaxDepth: 8, MaxValues: 250_000, MaxString: 64 << 10, MaxDecoded: 24 << 20}
	// RowIndexLimits bound row_index.json: 13 values a checkpoint, one
	// checkpoint per 1,024 rows, so about 15 million rows in all; an index
	// past them is not used (pages are then read without it).
	RowIndexLimits = jsonlimit.Limits{MaxDepth: 6, MaxValues: 200_000, MaxString: 4096, MaxDecoded: 16 << 20}
)

// DecodeBounded decodes one JSON document into v after counting it
// against lim: a document past the budget is refused before anything of
// it is decoded.
func DecodeBounded(data []byte, lim jsonlimit.Limits, v any) error {
	if err := jsonlimit.Check(data, lim); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// ReadSummary decodes summary.json within SummaryLimits.
func ReadSummary(data []byte) (*Summary, error) {
	var s Summary
	if err := DecodeBounded(data, SummaryLimits, &s); err != nil {
		return nil, fmt.Errorf("%s is not a summary this reader takes: %w", SummaryFile, err)
	}
	return &s, nil
}
