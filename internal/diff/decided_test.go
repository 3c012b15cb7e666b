package diff

import (
	"testing"
)

// TestCompareDecided: a new issue a decision covers is in no new figure
// (so thresholds and notifications pass it by) but in Totals.NewDecided,
// and its rows say so; the comparison asks about the scan's new issues
// alone, each as the history names it.
func TestCompareDecided(t *testing.T) {
	const html = `<img src="hero.jpg">`
	broken := func(_, cur resultsDir) {
		cur.edit("axe_core_audit.csv", func(r row) bool {
			if r.is(clean, "") {
				r.set("num_issues", "1")
				r.set("id", "image-alt")
				r.set("impact", "critical")
				r.set("html", html)
				r.set("target", "/html/body/main/img")
			}
			return true
		})
	}
	for _, tc := range []struct {
		name        string
		covers      func(f Finding, first IssueID) bool
		wantNew     int64
		wantDecided int64
		wantAsked   int
	}{
		{"no decision covers it", func(Finding, IssueID) bool { return false }, 2, 0, 2},
		{"a decision about the rule on the page", func(f Finding, _ IssueID) bool { return f.Rule == "image-alt" && f.URL == PageKey(clean) }, 0, 2, 2},
		{"a decision about one of its widths", func(f Finding, first IssueID) bool { return f.Rule == "image-alt" && f.ID == first }, 1, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, cur := loadReal(t), loadReal(t)
			broken(base, cur)
			// The ids the scan names its issues by, to decide about one.
			_, plain := compareWith(t, base.fs(t), cur.fs(t), Options{Namespace: "agencies"})
			var first IssueID
			for _, r := range plain {
				if r.Change == ChangeNew && first == (IssueID{}) {
					first, _ = ParseIssueID(r.IssueID)
				}
			}
			var asked []Finding
			res, rows := compareWith(t, base.fs(t), cur.fs(t), Options{Namespace: "agencies", Covered: func(f Finding) bool {
				asked = append(asked, f)
				return tc.covers(f, first)
			}})
			checkInvariants(t, base.fs(t), cur.fs(t), res, rows)
			if res.Counts.New != tc.wantNew || res.Totals.NewDecided != tc.wantDecided {
				t.Errorf("new %d, decided %d; want %d, %d", res.Counts.New, res.Totals.NewDecided, tc.wantNew, tc.wantDecided)
			}
			if tc.wantNew == 0 && (res.Counts.NewElements != 0 || len(res.Counts.NewByImpact) != 0) {
				t.Errorf("decided issues counted as new elements %d or by impact %v", res.Counts.NewElements, res.Counts.NewByImpact)
			}
			if len(asked) != tc.wantAsked {
				t.Fatalf("asked about %d findings, want %d: %+v", len(asked), tc.wantAsked, asked)
			}
			for _, f := range asked {
				if f.Namespace != "agencies" || f.Organisation == "" || f.Rule != "image-alt" || f.URL != PageKey(clean) ||
					f.Element != ElementHash(html) || f.ID == (IssueID{}) {
					t.Errorf("asked about %+v", f)
				}
			}
			for _, r := range rows {
				if r.Change == ChangeNew {
					id, _ := ParseIssueID(r.IssueID)
					if want := tc.covers(Finding{Rule: r.Rule, URL: PageKey(r.URL), ID: id}, first); r.Decided != want {
						t.Errorf("new row %s at %d: decided %v, want %v", r.IssueID, r.ViewportWidth, r.Decided, want)
					}
				}
			}
		})
	}
}

// TestCompareDecidedOtherAudits: a new issue of one of CWAC's own audits
// (no issue id in the comparison) is asked about with no id, by its
// audit's name as its rule, so that only a rule decision covers it.
func TestCompareDecidedOtherAudits(t *testing.T) {
	base, cur := loadReal(t), loadReal(t)
	// The home page's overflow fixed, the clean page's new: the scan's
	// only reflow issue, its audit's first record.
	cur.edit("reflow_audit.csv", func(r row) bool {
		switch {
		case r.is(home, small):
			r.set("overflows", "False")
			r.set("num_issues", "0")
			r.set("overflow_amount_px", "0")
		case r.is(clean, small):
			r.set("overflows", "True")
			r.set("num_issues", "1")
			r.set("overflow_amount_px", "40")
		}
		return true
	})
	var asked []Finding
	res, rows := compareWith(t, base.fs(t), cur.fs(t), Options{Namespace: "agencies", Covered: func(f Finding) bool {
		asked = append(asked, f)
		return f.Rule == "reflow_audit"
	}})
	checkInvariants(t, base.fs(t), cur.fs(t), res, rows)
	if len(asked) != 1 || asked[0].ID != (IssueID{}) || asked[0].Rule != "reflow_audit" || asked[0].URL != PageKey(clean) {
		t.Fatalf("asked about %+v, want the new reflow issue, with no id", asked)
	}
	if res.Counts.New != 0 || res.Totals.NewDecided != 1 {
		t.Errorf("new %d, decided %d; want the reflow issue decided", res.Counts.New, res.Totals.NewDecided)
	}
}
