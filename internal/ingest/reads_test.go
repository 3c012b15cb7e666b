package ingest

import (
	"io/fs"
	"maps"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/store"

	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// countingOpens counts the opens of one file of a results directory, and
// calls opened (when set) with the count at each.
type countingOpens struct {
	fs.FS
	file   string
	opens  int
	opened func(n int)
}

func (c *countingOpens) Open(name string) (fs.File, error) {
	if name == c.file {
		c.opens++
		if c.opened != nil {
			c.opened(c.opens)
		}
	}
	return c.FS.Open(name)
}

// TestResultsReadTwiceOnlyForText: a scan whose rows are all issues
// already stored is recorded from one read of its results, every issue
// still open; a scan with a new issue is read again for its text.
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

// observationRows are the stored observations by their physical row
// (SQLite's rowid, PostgreSQL's ctid): a row deleted and written again
// gets another.
func observationRows(t *testing.T, st *store.Store, engine string) map[string]string {
	t.Helper()
	row := "CAST(rowid AS TEXT)"
	if engine == "postgres" {
		row = "ctid::text"
	}
	what := "page_id || ' ' || viewport_width || ' ' || audit || ' ' || animating || ' ' || replaced"
	rows, err := st.DB().QueryContext(t.Context(), "SELECT "+row+", "+what+" FROM observations")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	out := map[string]string{}
	for rows.Next() {
		var at, what string
		if err := rows.Scan(&at, &what); err != nil {
			t.Fatal(err)
		}
		out[at] = what
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUnchangedPagesKeepTheirObservations: a scan that sees on each page
// what the last one saw leaves every page's observations as they were,
// not deleted and written again.
func TestUnchangedPagesKeepTheirObservations(t *testing.T) {
	weeks := weeklySequence(t)
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			ingestOK(t, st, weeks[0], week(0))
			before := observationRows(t, st, e.Name)
			if len(before) == 0 {
				t.Fatal("the first scan stored no observations")
			}
			ingestOK(t, st, weeks[0], week(1))
			if after := observationRows(t, st, e.Name); !maps.Equal(before, after) {
				t.Errorf("the same rows again rewrote the observations:\n%v\n%v", before, after)
			}
		})
	}
}
