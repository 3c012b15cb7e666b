package ingest

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// Each organisation's completeness is recorded with its figures: the
// trend and the organisation list show a firewall-refused or challenged
// organisation apart from one scanned cleanly, with the reason. On every
// engine (SQLite; PostgreSQL under the integration tag).
func TestIngestRecordsCompleteness(t *testing.T) {
	mixed := os.DirFS("../results/testdata/completeness/mixed")
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			ingestOK(t, st, mixed, week(0))
			ctx := context.Background()
			for _, tc := range []struct {
				org, verdict, reason string
			}{
				{org: "CWAC Test Org", verdict: "complete"},
				{org: "Big Org", verdict: "complete"},
				{org: "Challenge Org", verdict: "blocked", reason: "every page loaded was a challenge page (2, Cloudflare challenge)"},
				{org: "Firewall Org", verdict: "blocked", reason: "the base URL answered 403 (refused)"},
				{org: "Patchy Org", verdict: "partial", reason: "challenge pages (Cloudflare block)"},
				{org: "Half Org", verdict: "partial", reason: "https://half-b.example.govt.nz/ unreachable"},
			} {
				points, err := st.OrganisationTrend(ctx, []string{testNamespace}, tc.org, "")
				if err != nil {
					t.Fatal(err)
				}
				if len(points) != 1 {
					t.Fatalf("%s: %d points", tc.org, len(points))
				}
				p := points[0]
				if p.Completeness != tc.verdict || (tc.reason == "") != (p.CompletenessReason == "") || !strings.Contains(p.CompletenessReason, tc.reason) {
					t.Errorf("%s: %q %q, want %q with %q", tc.org, p.Completeness, p.CompletenessReason, tc.verdict, tc.reason)
				}
			}
			orgs, err := st.Organisations(ctx, []string{testNamespace})
			if err != nil {
				t.Fatal(err)
			}
			seen := 0
			for _, o := range orgs {
				if o.Name == "Firewall Org" {
					seen++
					if o.Latest == nil || o.Latest.Completeness != "blocked" {
						t.Errorf("the organisation list's latest figures: %+v", o.Latest)
					}
				}
			}
			if seen != 1 {
				t.Errorf("Firewall Org listed %d times", seen)
			}
		})
	}
}
