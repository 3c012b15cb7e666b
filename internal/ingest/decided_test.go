package ingest

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// TestKeptDecisionsLeaveTheFigures: a scan that kept its decisions beside
// its results is recorded with what they cover out of the organisation's
// issues, impact classes, audits, elements and score, counted as decided
// (a rule decision on any audit, an issue decision by the history's id and
// element; one past its review date at the scan's instant covers
// nothing), while the issues stay open in the history; a kept file that
// cannot be read is named among the skipped files and every issue counted.
func TestKeptDecisionsLeaveTheFigures(t *testing.T) {
	at := time.Date(2026, 1, 12, 3, 0, 0, 0, time.UTC)
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			st := e.Open(t)
			ingestOK(t, st, loadReal(t).fs(), week(0))
			page, err := st.IssueHistory(ctx, store.IssueFilter{Namespaces: testNamespaces, Organisation: org, Rule: "color-contrast", Limit: 1})
			if err != nil || len(page.Issues) != 1 {
				t.Fatalf("a color-contrast issue: %+v %v", page, err)
			}
			cc := page.Issues[0]
			id, err := diff.ParseIssueID(cc.Fingerprint)
			if err != nil {
				t.Fatal(err)
			}
			kept, _, err := scanpod.EncodeDecisions([]decision.Decision{
				{Ref: "a11y/alt", Organisation: org, Kind: decision.FalsePositive, Reason: "decorative", Rule: "image-alt", DecidedAt: at},
				{Ref: "a11y/reflow", Organisation: org, Kind: decision.WontFix, Reason: "a wide table", Rule: "reflow_audit", DecidedAt: at},
				{Ref: "a11y/one", Organisation: org, Kind: decision.Accepted, Reason: "brand colour", DecidedAt: at,
					Issue: &decision.Issue{ID: id, Element: cc.ElementHash}},
				{Ref: "a11y/old", Organisation: org, Kind: decision.Accepted, Reason: "expired", Rule: "link-name", DecidedAt: at, ReviewBy: at},
			}, at, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			w1 := loadReal(t).fs()
			w1[scanpod.DecisionsFile] = &fstest.MapFile{Data: kept}
			ingestOK(t, st, w1, week(1))
			bad := loadReal(t).fs()
			bad[scanpod.DecisionsFile] = &fstest.MapFile{Data: []byte(`{"version":1}`)}
			res := ingestOK(t, st, bad, week(2))
			if len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0], scanpod.DecisionsFile) {
				t.Errorf("a bad decisions file: skipped %v, want it named", res.Skipped)
			}

			trend, err := st.OrganisationTrend(ctx, testNamespaces, org, "weekly")
			if err != nil || len(trend) != 3 {
				t.Fatalf("trend %+v %v", trend, err)
			}
			plain, decided, unread := trend[0], trend[1], trend[2]
			// 4 image-alt rows, 1 reflow row, 1 color-contrast row.
			if decided.Decided != 6 || plain.Decided != 0 || unread.Decided != 0 {
				t.Fatalf("decided %d (plain %d, unread %d), want 6", decided.Decided, plain.Decided, unread.Decided)
			}
			if decided.Issues != plain.Issues-6 || decided.ByImpact["critical"] != plain.ByImpact["critical"]-4 ||
				decided.ByAudit["reflow_audit"] != plain.ByAudit["reflow_audit"]-1 || decided.ByAudit["reflow_audit"] != 0 {
				t.Errorf("figures %d %v %v; without decisions %d %v %v", decided.Issues, decided.ByImpact, decided.ByAudit,
					plain.Issues, plain.ByImpact, plain.ByAudit)
			}
			// 9 elements: 2 image-alt elements and the reflow one leave; the
			// color-contrast element stays at its other width.
			if decided.Elements != plain.Elements-3 || *decided.Score <= *plain.Score || decided.Open != plain.Open {
				t.Errorf("elements %d score %v open %d; without decisions %d %v %d", decided.Elements, *decided.Score, decided.Open,
					plain.Elements, *plain.Score, plain.Open)
			}
			if unread.Issues != plain.Issues || *unread.Score != *plain.Score {
				t.Errorf("an unreadable decisions file: %d issues, score %v; want every issue counted (%d, %v)",
					unread.Issues, *unread.Score, plain.Issues, *plain.Score)
			}
		})
	}
}
