package results

import (
	"context"
	"fmt"
	"strings"
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
