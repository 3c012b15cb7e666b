package results

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/jsonlimit"
)

// docAt builds a JSON document that reaches exactly one limit of lim (at,
// or one past it with over), for a budget's boundary table.
func docAt(limit string, lim jsonlimit.Limits, over bool) string {
	extra := 0
	if over {
		extra = 1
	}
	switch limit {
	case jsonlimit.LimitDepth:
		d := lim.MaxDepth + extra
		return strings.Repeat("[", d) + strings.Repeat("]", d)
	case jsonlimit.LimitValues:
		n := int(lim.MaxValues) - 1 + extra // the list is a value too
		return "[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]"
	case jsonlimit.LimitString:
		return `["` + strings.Repeat("a", lim.MaxString+extra) + `"]`
	default: // decoded: strings of MaxString bytes, the last one shorter
		var b strings.Builder
		b.WriteString("[")
		left := lim.MaxDecoded - jsonlimit.ValueCost + int64(extra) // the list's own cost
		for left > 0 {
			if b.Len() > 1 {
				b.WriteString(",")
			}
			n := min(left-jsonlimit.ValueCost, int64(lim.MaxString))
			b.WriteString(`"` + strings.Repeat("a", int(n)) + `"`)
			left -= jsonlimit.ValueCost + n
		}
		b.WriteString("]")
		return b.String()
	}
}

// Every limit of each file's budget at its value (decoded) and one past it
// (refused, naming the limit) through the file's own reader.
func TestJSONBudgetLimits(t *testing.T) {
	readers := []struct {
		name string
		lim  jsonlimit.Limits
		read func(string) error
	}{
		{"summary.json", SummaryLimits, func(d string) error { _, err := ReadSummary([]byte(`{"base_urls":` + d + `}`)); return err }},
		{"row_index.json", RowIndexLimits, func(d string) error { _, err := ParseRowIndex([]byte(`{"files":` + d + `}`)); return err }},
	}
	for _, r := range readers {
		for _, limit := range []string{jsonlimit.LimitDepth, jsonlimit.LimitValues, jsonlimit.LimitString, jsonlimit.LimitDecoded} {
			lim := r.lim
			// The document sits one level down and costs the wrapping
			// object and its key: the inner document gets what is left.
			switch limit {
			case jsonlimit.LimitDepth:
				lim.MaxDepth--
			case jsonlimit.LimitValues:
				lim.MaxValues -= 2
			case jsonlimit.LimitDecoded:
				lim.MaxDecoded -= 2*jsonlimit.ValueCost + int64(len(`base_urls`))
				if r.name == "row_index.json" {
					lim.MaxDecoded += int64(len(`base_urls`) - len(`files`))
				}
			}
			for _, over := range []bool{false, true} {
				err := r.read(docAt(limit, lim, over))
				var exceeded *jsonlimit.Exceeded
				passed := errors.As(err, &exceeded)
				if passed != over || passed && exceeded.Limit != limit {
					t.Errorf("%s, %s, one past: %v: %v", r.name, limit, over, err)
				}
			}
		}
	}
}

// measureAlloc is what fn allocates, in bytes: an upper bound of how much
// the heap grew while it ran.
func measureAlloc(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// The planted files of issue 20 are refused after a few kilobytes, with
// the limit named, and cost next to nothing: a 16 MiB row_index.json of
// {} (2.68 GB before) and a 4 MiB summary.json of top_violations [{}, …]
// (426 MB).
func TestPlantedJSONFilesAreRefused(t *testing.T) {
	index := `{"version":1,"every":1024,"files":[{"file":"a.csv","size":1,"checkpoints":[` +
		strings.Repeat("{},", (MaxRowIndexBytes-200)/3) + `{}]}]}`
	summary := `{"total_issues":1,"top_violations":[` + strings.Repeat("{},", (4<<20-100)/3) + `{}]}`
	if len(index) > MaxRowIndexBytes || len(index) < MaxRowIndexBytes-1024 || len(summary) > 4<<20 {
		t.Fatalf("planted files of %d and %d bytes", len(index), len(summary))
	}
	indexData, summaryData := []byte(index), []byte(summary)
	var err error
	if got := measureAlloc(func() { _, err = ParseRowIndex(indexData) }); got > 64<<10 {
		t.Errorf("refusing the planted row index allocated %d bytes", got)
	}
	if err == nil || !strings.Contains(err.Error(), "row_index.json: more values than the limit of 200000") {
		t.Errorf("planted row index: %v", err)
	}
	if got := measureAlloc(func() { _, err = ReadSummary(summaryData) }); got > 64<<10 {
		t.Errorf("refusing the planted summary allocated %d bytes", got)
	}
	if err == nil || !strings.Contains(err.Error(), "summary.json is not a summary this reader takes: more values than the limit of 250000") {
		t.Errorf("planted summary: %v", err)
	}
	// A real summary of 1000 base URLs is well within the budget.
	var b strings.Builder
	b.WriteString(`{"total_issues":5,"base_urls":[`)
	for i := range 1000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"organisation":"Org %d","base_url":"https://site%d.example/","sector":"unknown","pages":50}`, i, i)
	}
	b.WriteString(`]}`)
	if s, err := ReadSummary([]byte(b.String())); err != nil || len(s.BaseURLs) != 1000 {
		t.Errorf("a 1000-site summary: %v", err)
	}
}

// FuzzReadSummary: whatever the file, reading it never panics, and what
// it allocates is within a small multiple of the budget's decoded-size
// estimate: the memory bound holds for every input, not only the planted
// ones.
func FuzzReadSummary(f *testing.F) {
	f.Add([]byte(`{"total_issues":3,"top_violations":[{"id":"image-alt","count":3}],"issues_by_impact":{"critical":3},` +
		`"base_urls":[{"base_url":"https://a.example/","pages":2}]}`))
	f.Add([]byte(`{"top_violations":[{},{},{}],"unscanned_base_urls":["a","b"],"diff":{"by_organisation":[{},{}]}}`))
	f.Add([]byte(`[[[[[[[[[]]]]]]]]]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := jsonlimit.New(SummaryLimits)
		_, budgetErr := c.Write(data)
		_, _ = ReadSummary(data) // once first: encoding/json caches what it learns of the types
		var err error
		got := measureAlloc(func() { _, err = ReadSummary(data) })
		if budgetErr != nil && err == nil {
			t.Fatalf("a file past the budget (%v) was read", budgetErr)
		}
		if bound := uint64(4*c.Decoded() + 16<<10); got > bound {
			t.Fatalf("reading allocated %d bytes, more than %d (4× the estimate %d plus 16 KiB)", got, bound, c.Decoded())
		}
	})
}
