package ingest

import (
	"io/fs"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// countingOpens counts the opens of one file of a results directory.
type countingOpens struct {
	fs.FS
	file  string
	opens int
}

func (c *countingOpens) Open(name string) (fs.File, error) {
	if name == c.file {
		c.opens++
	}
	return c.FS.Open(name)
}

// TestResultsReadTwiceOnlyForText: a scan whose rows are all issues
// already stored is recorded from one read of its results, with the
// figures of the same scan recorded from two; a scan with a new issue is
// read again for its text.
func TestResultsReadTwiceOnlyForText(t *testing.T) {
	weeks := weeklySequence(t)
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			first := &countingOpens{FS: weeks[0], file: axeCSV}
			res := ingestOK(t, st, first, week(0))
			if first.opens != 2 || res.New == 0 {
				t.Fatalf("a first scan: %d reads of %s, %d new issues; want 2 reads", first.opens, axeCSV, res.New)
			}
			again := &countingOpens{FS: weeks[0], file: axeCSV}
			res = ingestOK(t, st, again, week(1))
			if again.opens != 1 {
				t.Errorf("the same rows as the next scan: %d reads of %s, want 1", again.opens, axeCSV)
			}
			if res.New != 0 || res.StillOpen == 0 || res.Fixed != 0 {
				t.Errorf("the same rows as the next scan: %+v, want every issue still open", res)
			}
			trend, err := st.OrganisationTrend(t.Context(), testNamespaces, org, "")
			if err != nil || len(trend) != 2 || trend[1].Open != trend[0].Open {
				t.Errorf("the trend after the same rows again: %+v, %v", trend, err)
			}
			next := &countingOpens{FS: weeks[1], file: axeCSV}
			if res = ingestOK(t, st, next, week(2)); res.New == 0 {
				t.Fatalf("the weekly sequence's second week adds no issue: %+v", res)
			}
			if next.opens != 2 {
				t.Errorf("a scan with new issues: %d reads of %s, want 2", next.opens, axeCSV)
			}
		})
	}
}
