package cireport

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/testutil/realcwac"
)

// realFS returns the real run's CSVs (testutil/realcwac) as a MapFS the
// tests may change.
func realFS(t *testing.T) fstest.MapFS {
	t.Helper()
	r, err := realcwac.Load()
	if err != nil {
		t.Fatal(err)
	}
	return (&realcwac.Results{CSVs: r.CSVs}).FS()
}

// axeLines splits the real axe audit into its header and rows (one line
// each in the real run: no cell holds a newline).
func axeLines(t *testing.T, m fstest.MapFS) (string, []string) {
	t.Helper()
	lines := strings.SplitAfter(string(m[AxeAuditFile].Data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) < 10 {
		t.Fatalf("the real axe audit has %d lines; the tests expect more", len(lines))
	}
	return lines[0], lines[1:]
}

func setAxe(m fstest.MapFS, header string, rows []string) {
	m[AxeAuditFile] = &fstest.MapFile{Data: []byte(header + strings.Join(rows, ""))}
}

// withDiff compares cur with base as the runner does and adds diff.json and
// the ids it named cur's rows by (diff.IssueIDsFile) to cur; it returns
// what the comparison gave the CI reports as it was made, its fixed rows
// spooled to a file the test removes.
func withDiff(t *testing.T, base, cur fstest.MapFS) *Comparison {
	t.Helper()
	return withDiffInto(t, base, cur, tempSpool(t))
}

// withDiffInto is withDiff with the Comparison's fixed rows spooled to spool.
func withDiffInto(t *testing.T, base, cur fstest.MapFS, spool Spool) *Comparison {
	t.Helper()
	var rowSpool bytes.Buffer
	rw := diff.NewRowWriter(&rowSpool)
	forReports := NewComparison("base-scan", spool)
	rows := func(r *diff.Row) error {
		forReports.Add(r)
		return rw.Write(r)
	}
	res, err := diff.Compare(context.Background(), base, cur, diff.Options{Baseline: "base-scan", Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	var doc bytes.Buffer
	if err := diff.WriteDocument(&doc, res, &rowSpool); err != nil {
		t.Fatal(err)
	}
	cur[results.DiffFile] = &fstest.MapFile{Data: doc.Bytes()}
	named, err := res.IssueIDs.All()
	if err != nil {
		t.Fatal(err)
	}
	var ids bytes.Buffer
	if err := diff.WriteIssueIDs(&ids, named); err != nil {
		t.Fatal(err)
	}
	cur[diff.IssueIDsFile] = &fstest.MapFile{Data: ids.Bytes()}
	return forReports
}

type sarifLog struct {
	Runs []struct {
		Results []struct {
			RuleID              string             `json:"ruleId"`
			RuleIndex           int                `json:"ruleIndex"`
			Level               string             `json:"level"`
			BaselineState       string             `json:"baselineState"`
			PartialFingerprints map[string]string  `json:"partialFingerprints"`
			Suppressions        []sarifSuppression `json:"suppressions"`
			Locations           []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region struct {
						Snippet struct {
							Text string `json:"text"`
						} `json:"snippet"`
					} `json:"region"`
				} `json:"physicalLocation"`
				LogicalLocations []struct {
					FullyQualifiedName string `json:"fullyQualifiedName"`
				} `json:"logicalLocations"`
			} `json:"locations"`
			Properties struct {
				ViewportWidth int    `json:"viewportWidth"`
				Organisation  string `json:"organisation"`
			} `json:"properties"`
		} `json:"results"`
		Tool struct {
			Driver struct {
				Rules []struct {
					ID         string `json:"id"`
					HelpURI    string `json:"helpUri"`
					Properties struct {
						Tags []string `json:"tags"`
						WCAG []string `json:"wcag"`
					} `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Invocations []struct {
			Notes []struct {
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
			} `json:"toolExecutionNotifications"`
		} `json:"invocations"`
		Properties map[string]any `json:"properties"`
	} `json:"runs"`
}

func sarifOf(t *testing.T, fsys fs.FS, opts Options) ([]byte, sarifLog) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteSARIF(context.Background(), &buf, fsys, opts); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatalf("SARIF is not JSON: %v\n%s", err, buf.String())
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(log.Runs))
	}
	return buf.Bytes(), log
}

func junitOf(t *testing.T, fsys fs.FS, opts Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJUnit(context.Background(), &buf, fsys, opts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
