package cireport

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/a11y-dev/cwac-operator/internal/diff"
)

// A report built again from results the runner named (the MCP server's,
// at another fail-at impact) names each issue by the id the results'
// issue_ids.txt keeps, in both formats; results without the file are named
// as a scan without a baseline names them; a file that is not an ids file
// is refused, not guessed around.
func TestReportsNameIssuesByTheKeptIDs(t *testing.T) {
	kept := make([]diff.IssueID, 12)
	for i := range kept {
		kept[i][0], kept[i][15] = byte(i+1), 0xee
	}
	var file bytes.Buffer
	if err := diff.WriteIssueIDs(&file, kept); err != nil {
		t.Fatal(err)
	}
	fsys := realFS(t)
	fsys[diff.IssueIDsFile] = &fstest.MapFile{Data: file.Bytes()}
	_, log := sarifOf(t, fsys, Options{FailAt: "minor"})
	if len(log.Runs[0].Results) != len(kept) {
		t.Fatalf("%d results for %d issue rows", len(log.Runs[0].Results), len(kept))
	}
	for i, r := range log.Runs[0].Results {
		if got := r.PartialFingerprints[FingerprintKey]; got != kept[i].String() {
			t.Errorf("result %d: fingerprint %s, want the kept %s", i, got, kept[i])
		}
	}
	var junit bytes.Buffer
	if err := WriteJUnit(context.Background(), &junit, fsys, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, id := range kept {
		if !strings.Contains(junit.String(), "(issue "+id.String()+")") {
			t.Errorf("junit.xml does not name issue %s", id)
		}
	}

	_, fresh := sarifOf(t, realFS(t), Options{Namespace: "a11y"})
	named := namedIDs(t)
	for i, r := range fresh.Runs[0].Results {
		if got := r.PartialFingerprints[FingerprintKey]; got != named[i].String() {
			t.Errorf("result %d: fingerprint %s, want %s as a scan without a baseline names it", i, got, named[i])
		}
	}

	// A file whose ids end early names the rest afresh, never as a kept id;
	// one with a malformed line is refused at that line.
	var short bytes.Buffer
	if err := diff.WriteIssueIDs(&short, kept[:3]); err != nil {
		t.Fatal(err)
	}
	fsys[diff.IssueIDsFile] = &fstest.MapFile{Data: short.Bytes()}
	_, log = sarifOf(t, fsys, Options{Namespace: "a11y"})
	seen := map[string]bool{}
	for i, r := range log.Runs[0].Results {
		fp := r.PartialFingerprints[FingerprintKey]
		if (i < 3) != (fp == kept[min(i, 2)].String()) || seen[fp] {
			t.Errorf("result %d: fingerprint %s (kept up to 3)", i, fp)
		}
		seen[fp] = true
	}
	fsys[diff.IssueIDsFile] = &fstest.MapFile{Data: append(short.Bytes(), "xyz\n"...)}
	err := WriteSARIF(context.Background(), &bytes.Buffer{}, fsys, Options{})
	if err == nil || !strings.Contains(err.Error(), "issue_ids.txt: line 5: issue id") {
		t.Errorf("a malformed line: %v", err)
	}
	fsys[diff.IssueIDsFile] = &fstest.MapFile{Data: []byte("not ids\n")}
	err = WriteSARIF(context.Background(), &bytes.Buffer{}, fsys, Options{})
	if err == nil || !strings.Contains(err.Error(), "issue_ids.txt: not an issue ids file") {
		t.Errorf("a broken ids file: %v", err)
	}
}

// Known ids (the comparison's, Options.IssueIDs, or those of the results'
// issue_ids.txt) name the rows they reach; when they end early, the rest
// are named afresh around every id already given: a row whose own id was
// given to an earlier row takes the next ordinal, and no id is given twice.
func TestKnownIDsEndingEarly(t *testing.T) {
	named := namedIDs(t)
	if len(named) < 6 {
		t.Fatalf("the fixture has %d issue rows; the case needs 6", len(named))
	}
	// The first row is given the id the sixth would be named by.
	given := named[5:6]
	var file bytes.Buffer
	if err := diff.WriteIssueIDs(&file, given); err != nil {
		t.Fatal(err)
	}
	fromFile := realFS(t)
	fromFile[diff.IssueIDsFile] = &fstest.MapFile{Data: file.Bytes()}
	for source, run := range map[string]func() sarifLog{
		"the comparison's": func() sarifLog {
			_, log := sarifOf(t, realFS(t), Options{Namespace: "a11y", IssueIDs: diff.IssueIDListOf(given)})
			return log
		},
		"the results' file": func() sarifLog {
			_, log := sarifOf(t, fromFile, Options{Namespace: "a11y"})
			return log
		},
	} {
		results := run().Runs[0].Results
		if len(results) != len(named) {
			t.Fatalf("%s: %d results for %d issue rows", source, len(results), len(named))
		}
		seen := map[string]bool{}
		for i, r := range results {
			fp := r.PartialFingerprints[FingerprintKey]
			switch {
			case seen[fp]:
				t.Errorf("%s: result %d: fingerprint %s given twice", source, i, fp)
			case i == 0 && fp != given[0].String():
				t.Errorf("%s: result 0: fingerprint %s, want the given %s", source, fp, given[0])
			case i > 0 && i != 5 && fp != named[i].String():
				t.Errorf("%s: result %d: fingerprint %s, want %s as named afresh", source, i, fp, named[i])
			}
			seen[fp] = true
		}
	}
}

// namedIDs are the ids the comparison names the real fixture's issue rows
// by, as a scan without a baseline.
func namedIDs(t *testing.T) []diff.IssueID {
	t.Helper()
	named, err := diff.Compare(context.Background(), fstest.MapFS{}, realFS(t), diff.Options{Namespace: "a11y"})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := named.IssueIDs.All()
	if err != nil {
		t.Fatal(err)
	}
	return ids
}
