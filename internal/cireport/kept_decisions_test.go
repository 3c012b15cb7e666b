package cireport

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// keptFS is the real run with decisions.json as the runner keeps it.
func keptFS(t *testing.T, ds []decision.Decision, at time.Time) fstest.MapFS {
	t.Helper()
	data, left, err := scanpod.EncodeDecisions(ds, at, 1<<20)
	if err != nil || left != 0 {
		t.Fatalf("encoding the decisions: %v (%d left out)", err, left)
	}
	fsys := realFS(t)
	fsys[scanpod.DecisionsFile] = &fstest.MapFile{Data: data}
	return fsys
}

// TestReportsJudgeByKeptDecisions: a report built later from a scan's
// results (the MCP server's, at another fail-at impact) suppresses and
// skips what the decisions the scan kept cover, as of their instant, as
// the scan's own reports did; decisions given outright are used instead.
func TestReportsJudgeByKeptDecisions(t *testing.T) {
	at := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	_, plain := sarifOf(t, realFS(t), realOpts)
	org := ""
	for _, r := range plain.Runs[0].Results {
		if r.RuleID == "image-alt" {
			org = r.Properties.Organisation
		}
	}
	ds := []decision.Decision{
		{Ref: "ns/alt", Namespace: "ns", Organisation: org, Kind: decision.FalsePositive, Reason: "decorative", DecidedBy: "alice",
			DecidedAt: at.Add(-time.Hour), Rule: "image-alt"},
		{Ref: "ns/late", Namespace: "ns", Organisation: org, Kind: decision.Accepted, Reason: "r", DecidedBy: "bob",
			DecidedAt: at.Add(-time.Hour), Rule: "color-contrast", ReviewBy: at},
	}
	opts := realOpts
	opts.Namespace = "ns"
	_, kept := sarifOf(t, keptFS(t, ds, at), opts)
	given := opts
	given.Decisions, given.DecidedAt = decision.NewSet(ds), at
	_, want := sarifOf(t, realFS(t), given)
	suppressed := func(l sarifLog) (n int, rules []string) {
		for _, r := range l.Runs[0].Results {
			if len(r.Suppressions) > 0 {
				n++
				rules = append(rules, r.RuleID)
			}
		}
		return n, rules
	}
	gotN, gotRules := suppressed(kept)
	wantN, _ := suppressed(want)
	if gotN == 0 || gotN != wantN || strings.Trim(strings.ReplaceAll(strings.Join(gotRules, ","), "image-alt", ""), ",") != "" {
		t.Errorf("kept decisions suppressed %d (%v), the same decisions given %d: want the image-alt results alone", gotN, gotRules, wantN)
	}
	if got, wantJ := junitOf(t, keptFS(t, ds, at), opts), junitOf(t, realFS(t), given); !bytes.Equal(got, wantJ) {
		t.Errorf("JUnit by the kept decisions differs from JUnit by the same decisions given:\n%s\n---\n%s", got, wantJ)
	}
	if !bytes.Contains(junitOf(t, keptFS(t, ds, at), opts), []byte("<skipped")) {
		t.Error("JUnit by the kept decisions skips nothing")
	}
	// Decisions given outright (none covering anything) win over the kept file.
	none := opts
	none.Decisions, none.DecidedAt = decision.NewSet(nil), at
	if _, l := sarifOf(t, keptFS(t, ds, at), none); func() int { n, _ := suppressed(l); return n }() != 0 {
		t.Error("the kept decisions were used though the report was given its own")
	}
}

// TestReportsRefuseUnreadableKeptDecisions: a kept decisions file that is
// not the format stops both reports, naming it, rather than counting what
// it would have decided as failures.
func TestReportsRefuseUnreadableKeptDecisions(t *testing.T) {
	fsys := realFS(t)
	fsys[scanpod.DecisionsFile] = &fstest.MapFile{Data: []byte(`{"version": 99}`)}
	for name, write := range map[string]func(context.Context, *bytes.Buffer) error{
		"SARIF": func(ctx context.Context, b *bytes.Buffer) error { return WriteSARIF(ctx, b, fsys, realOpts) },
		"JUnit": func(ctx context.Context, b *bytes.Buffer) error { return WriteJUnit(ctx, b, fsys, realOpts) },
	} {
		var buf bytes.Buffer
		err := write(context.Background(), &buf)
		if err == nil || !strings.Contains(err.Error(), scanpod.DecisionsFile) || !strings.Contains(err.Error(), "kept decisions") {
			t.Errorf("%s with an unreadable decisions file: error %v, want one naming %s", name, err, scanpod.DecisionsFile)
		}
		if buf.Len() != 0 {
			t.Errorf("%s wrote %d bytes before refusing", name, buf.Len())
		}
	}
}
