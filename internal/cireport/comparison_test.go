package cireport

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// TestComparisonGivesWhatDiffJSONGives: the CI reports made from the
// comparison's rows as they came are byte for byte the reports made by
// reading diff.json back, with diff.json gone from the results: the same
// baseline states, the same absent results in the same order, the same
// baseline named.
func TestComparisonGivesWhatDiffJSONGives(t *testing.T) {
	cases := map[string]func(t *testing.T) (base, cur fstest.MapFS){
		"new and fixed": func(t *testing.T) (fstest.MapFS, fstest.MapFS) {
			base, cur := realFS(t), realFS(t)
			header, rows := axeLines(t, base)
			extra := strings.Replace(rows[0], "/html/body/main/p", "/html/body/footer/p", 1)
			extra = strings.Replace(extra, "<p", "<p class=\"\"gone\"\"", 1)
			setAxe(base, header, append([]string{extra}, rows[1:]...))
			return base, cur
		},
		"against itself": func(t *testing.T) (fstest.MapFS, fstest.MapFS) { return realFS(t), realFS(t) },
		"every issue fixed": func(t *testing.T) (fstest.MapFS, fstest.MapFS) {
			base, cur := realFS(t), realFS(t)
			header, _ := axeLines(t, cur)
			setAxe(cur, header, nil)
			return base, cur
		},
		"a row twice": func(t *testing.T) (fstest.MapFS, fstest.MapFS) {
			base, cur := realFS(t), realFS(t)
			header, rows := axeLines(t, cur)
			setAxe(cur, header, append([]string{rows[0]}, rows...))
			return base, cur
		},
	}
	optionSets := map[string]Options{
		"as the runner":  realOpts,
		"fail at minor":  {Scan: "s", FailAt: results.ImpactMinor},
		"capped at 5":    {MaxResults: 5},
		"baseline named": {Baseline: "given-name"},
	}
	for name, make := range cases {
		for optName, opts := range optionSets {
			t.Run(name+"/"+optName, func(t *testing.T) {
				base, cur := make(t)
				withDiff(t, base, cur)
				fromFile, _ := sarifOf(t, cur, opts)
				junitFromFile := junitOf(t, cur, opts)

				base, cur = make(t)
				forReports := withDiff(t, base, cur)
				delete(cur, results.DiffFile)
				opts.Comparison = forReports
				fromRows, _ := sarifOf(t, cur, opts)
				if !bytes.Equal(fromRows, fromFile) {
					t.Errorf("SARIF from the comparison's rows differs from SARIF from diff.json:\n%s\n---\n%s", fromRows, fromFile)
				}
				if j := junitOf(t, cur, opts); !bytes.Equal(j, junitFromFile) {
					t.Errorf("JUnit from the comparison differs from JUnit from diff.json:\n%s\n---\n%s", j, junitFromFile)
				}
			})
		}
	}
}

// failingSpool loses its writes past the first n bytes.
type failingSpool struct{ room int }

func (s *failingSpool) Write(b []byte) (int, error) {
	if len(b) > s.room {
		return 0, errors.New("disk full")
	}
	s.room -= len(b)
	return len(b), nil
}
func (s *failingSpool) ReadAt([]byte, int64) (int, error) { return 0, io.EOF }

// garbledSpool gives back something other than what was written.
type garbledSpool struct{}

func (garbledSpool) Write(b []byte) (int, error) { return len(b), nil }
func (garbledSpool) ReadAt(p []byte, off int64) (int, error) {
	n := copy(p, strings.Repeat("{nope\n", len(p)/6+1)[off:])
	return n, nil
}

// A spool that loses, garbles or cannot give back the fixed rows fails
// SARIF with an error saying so, never a report short of its absent
// results; the comparison itself (Add) never fails.
func TestComparisonSpoolFailing(t *testing.T) {
	tests := []struct {
		name  string
		spool Spool
		want  string
	}{
		{name: "writes fail", spool: &failingSpool{}, want: "keeping the baseline's fixed issues: disk full"},
		{name: "reads fail", spool: brokenSpool{readErr: errors.New("disk gone")}, want: "the baseline's fixed issues: reading the spooled rows: disk gone"},
		{name: "reads end early", spool: brokenSpool{readErr: io.EOF}, want: "0 of the 1 kept were read back"},
		{name: "garbled", spool: garbledSpool{}, want: "spooled row 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base, cur := realFS(t), realFS(t)
			header, rows := axeLines(t, base)
			extra := strings.Replace(rows[0], "/html/body/main/p", "/html/body/footer/p", 1)
			extra = strings.Replace(extra, "<p", "<p class=\"\"gone\"\"", 1)
			setAxe(base, header, append([]string{extra}, rows[1:]...))
			forReports := withDiffInto(t, base, cur, tc.spool)
			opts := realOpts
			opts.Comparison = forReports
			var buf bytes.Buffer
			err := WriteSARIF(t.Context(), &buf, cur, opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
