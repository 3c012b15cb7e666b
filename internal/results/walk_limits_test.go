package results

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
)

// rowCounter counts the rows Walk hands it, per file.
type rowCounter struct{ rows map[string]int }

func (c *rowCounter) VisitRow(file string, _ *Reader, _ Row) error { c.rows[file]++; return nil }

// lateCancel is a context that is cancelled from its second Err on: Walk
// starts the first file, then finds it cancelled at its first look.
type lateCancel struct {
	context.Context
	calls int
}

func (c *lateCancel) Err() error {
	c.calls++
	if c.calls > 1 {
		return context.Canceled
	}
	return nil
}

// TestWalkLooksAtItsContextEveryBatch: Walk looks at its context every
// ctxCheckRows rows of a file (not before): a cancelled walk hands over
// the rows before the first look and returns the context's own error, not
// wrapped in the file's name.
func TestWalkLooksAtItsContextEveryBatch(t *testing.T) {
	for _, rows := range []int{ctxCheckRows - 1, ctxCheckRows, ctxCheckRows + 1} {
		fsys := fstest.MapFS{"x.csv": {Data: []byte("v\n" + strings.Repeat("1\n", rows))}}
		c := &rowCounter{rows: map[string]int{}}
		err := Walk(&lateCancel{Context: context.Background()}, fsys, c)
		if rows < ctxCheckRows {
			if err != nil || c.rows["x.csv"] != rows {
				t.Errorf("%d rows: %d seen, err %v; want all, no error", rows, c.rows["x.csv"], err)
			}
			continue
		}
		if err != context.Canceled || c.rows["x.csv"] != ctxCheckRows-1 { //nolint:errorlint // the error itself, not wrapped
			t.Errorf("%d rows: %d seen, err %v; want %d, context.Canceled itself", rows, c.rows["x.csv"], err, ctxCheckRows-1)
		}
	}
}

// TestWalkFilesChoosesTheCSVs: Walk reads every regular CSV at the root
// but our leaderboard and progress.csv, in name order.
func TestWalkFilesChoosesTheCSVs(t *testing.T) {
	fsys := fstest.MapFS{
		"b.csv": {Data: []byte("v\n")}, "a.csv": {Data: []byte("v\n")}, LeaderboardFile: {Data: []byte("v\n")},
		ProgressFile: {Data: []byte("v\n")}, "notes.txt": {}, "c.CSV": {}, "d.csv/x.csv": {Data: []byte("v\n")},
	}
	got, err := WalkFiles(fsys)
	must(t, err)
	if fmt.Sprint(got) != "[a.csv b.csv]" {
		t.Errorf("WalkFiles = %v, want [a.csv b.csv]", got)
	}
}

// TestAuditNameAndRules: which CSVs are audits, and the descriptions of
// the audits that are not axe's.
func TestAuditNameAndRules(t *testing.T) {
	for _, tt := range []struct {
		file, want string
		ok         bool
	}{
		{"axe_core_audit.csv", "axe_core_audit", true},
		{"reflow_audit.csv", "reflow_audit", true},
		{"pages_scanned.csv", "", false},
		{"audit_log.csv", "", false},
		{LeaderboardFile, "", false},
		{"notes.txt", "", false},
		{"x.csv.bak", "", false},
	} {
		if got, ok := AuditName(tt.file); got != tt.want || ok != tt.ok {
			t.Errorf("AuditName(%q) = %q, %v; want %q, %v", tt.file, got, ok, tt.want, tt.ok)
		}
	}
	if RuleDescription("reflow_audit") == "" || RuleDescription("focus_indicator_audit") == "" || RuleDescription("axe_core_audit") != "" {
		t.Error("RuleDescription describes the wrong audits")
	}
}

// fileEvents records a FileVisitor's calls, and fails EndFile when told.
type fileEvents struct {
	name    string
	log     *[]string
	failEnd bool
}

func (f *fileEvents) BeginFile(file string, _ *Reader) error {
	*f.log = append(*f.log, f.name+" begin "+file)
	return nil
}

func (f *fileEvents) VisitRow(string, *Reader, Row) error { return nil }

func (f *fileEvents) EndFile(file string, _ *Reader) error {
	*f.log = append(*f.log, f.name+" end "+file)
	if f.failEnd {
		return fmt.Errorf("%s cannot end", f.name)
	}
	return nil
}

// TestWalkEndsEveryFileForEveryVisitor: each visitor's EndFile is called
// for each file, and the first that fails stops the walk naming the file.
func TestWalkEndsEveryFileForEveryVisitor(t *testing.T) {
	fsys := fstest.MapFS{"a.csv": {Data: []byte("v\n1\n")}, "b.csv": {Data: []byte("v\n")}}
	var log []string
	must(t, Walk(context.Background(), fsys, &fileEvents{name: "x", log: &log}, &fileEvents{name: "y", log: &log}))
	want := "[x begin a.csv y begin a.csv x end a.csv y end a.csv x begin b.csv y begin b.csv x end b.csv y end b.csv]"
	if fmt.Sprint(log) != want {
		t.Errorf("calls %v, want %s", log, want)
	}
	log = nil
	err := Walk(context.Background(), fsys, &fileEvents{name: "x", log: &log, failEnd: true}, &fileEvents{name: "y", log: &log})
	if err == nil || err.Error() != "a.csv: x cannot end" || fmt.Sprint(log) != "[x begin a.csv y begin a.csv x end a.csv]" {
		t.Errorf("err %v, calls %v; want a.csv: x cannot end, after x's end of a.csv", err, log)
	}
}

// skipEvents records a SkipVisitor's calls (and rows), failing when told.
type skipEvents struct {
	skipped []string
	rows    int
	fail    bool
}

func (s *skipEvents) SkipFile(name, why string) error {
	s.skipped = append(s.skipped, name+": "+why)
	if s.fail {
		return fmt.Errorf("cannot skip %s", name)
	}
	return nil
}

func (s *skipEvents) VisitRow(string, *Reader, Row) error { s.rows++; return nil }

// TestWalkSaysWhatItLeavesOut: a CSV that is a link, a pipe or a directory
// is not read, and a SkipVisitor hears of each, by name and why, before
// any row; one that fails stops the walk. Leaderboard and progress files
// are not results and are not reported.
func TestWalkSaysWhatItLeavesOut(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a.csv"), []byte("v\n1\n2\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "target"), []byte("v\n1\n"), 0o600))
	must(t, os.Symlink("target", filepath.Join(dir, "link.csv")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "pipe.csv"), 0o600))
	must(t, os.Mkdir(filepath.Join(dir, "dir.csv"), 0o700))
	must(t, os.Symlink("target", filepath.Join(dir, LeaderboardFile)))
	sv := &skipEvents{}
	must(t, Walk(context.Background(), os.DirFS(dir), sv))
	want := "[dir.csv: dir.csv is not a regular file (d---------) link.csv: link.csv is not a regular file (L---------) " +
		"pipe.csv: pipe.csv is not a regular file (p---------)]"
	if fmt.Sprint(sv.skipped) != want || sv.rows != 2 {
		t.Errorf("skipped %v, %d rows; want %s and 2 rows", sv.skipped, sv.rows, want)
	}
	failing := &skipEvents{fail: true}
	if err := Walk(context.Background(), os.DirFS(dir), failing); err == nil || !strings.Contains(err.Error(), "cannot skip dir.csv") || failing.rows != 0 {
		t.Errorf("a failing SkipFile: %v after %d rows, want the walk stopped before any", err, failing.rows)
	}
}
