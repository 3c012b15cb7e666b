package decision

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/diff"
)

var (
	now  = time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	idA  = diff.NewIssueID(diff.PartsOf("agencies", "Health", "https://health.example/", 320, "axe_core_audit\x00image-alt", 1, 2), 0)
	idB  = diff.NewIssueID(diff.PartsOf("agencies", "Health", "https://health.example/", 1280, "axe_core_audit\x00image-alt", 1, 2), 0)
	base = Finding{Namespace: "agencies", Organisation: "Health", ID: idA, Element: 1, Rule: "image-alt", URL: "https://health.example/"}
)

// issueDecision decides about the issue id with base's element.
func issueDecision(ref string, id diff.IssueID) Decision {
	return Decision{Ref: ref, Namespace: "agencies", Organisation: "Health", Kind: FalsePositive, Reason: "decorative",
		DecidedAt: now.Add(-time.Hour), Issue: &Issue{ID: id, Element: base.Element}}
}

func ruleDecision(ref, rule, pages string) Decision {
	return Decision{Ref: ref, Namespace: "agencies", Organisation: "Health", Kind: WontFix, Reason: "third-party widget",
		DecidedAt: now.Add(-time.Hour), Rule: rule, Pages: pages}
}

func with(d Decision, f func(*Decision)) Decision {
	f(&d)
	return d
}

func finding(f func(*Finding)) Finding {
	out := base
	f(&out)
	return out
}

func TestCovering(t *testing.T) {
	for _, tc := range []struct {
		name      string
		decisions []Decision
		finding   Finding
		want      string // the covering decision's Ref; "" for none
	}{
		{"no decisions", nil, base, ""},
		{"the issue and its element", []Decision{issueDecision("d1", idA)}, base, "d1"},
		{"the element changed in place: the issue kept its id", []Decision{issueDecision("d1", idA)},
			finding(func(f *Finding) { f.Element = 9 }), ""},
		{"another issue (the other width)", []Decision{issueDecision("d1", idB)}, base, ""},
		{"an issue decision of another organisation", []Decision{with(issueDecision("d1", idA), func(d *Decision) { d.Organisation = "Education" })},
			base, ""},
		{"an issue decision of another namespace", []Decision{with(issueDecision("d1", idA), func(d *Decision) { d.Namespace = "other" })},
			base, ""},
		{"past its review date", []Decision{with(issueDecision("d1", idA), func(d *Decision) { d.Kind, d.ReviewBy = Accepted, now })},
			base, ""},
		{"before its review date", []Decision{with(issueDecision("d1", idA), func(d *Decision) {
			d.Kind, d.ReviewBy = Accepted, now.Add(time.Second)
		})},
			base, "d1"},
		{"a rule across the organisation", []Decision{ruleDecision("r1", "image-alt", "")}, base, "r1"},
		{"another rule", []Decision{ruleDecision("r1", "color-contrast", "")}, base, ""},
		{"a rule of another organisation", []Decision{with(ruleDecision("r1", "image-alt", ""), func(d *Decision) { d.Organisation = "Education" })},
			base, ""},
		{"a rule of another namespace", []Decision{with(ruleDecision("r1", "image-alt", ""), func(d *Decision) { d.Namespace = "other" })},
			base, ""},
		{"a CWAC audit's rule", []Decision{ruleDecision("r1", "focus_indicator_audit", "")},
			finding(func(f *Finding) { f.Rule = "focus_indicator_audit" }), "r1"},
		{"under a page prefix", []Decision{ruleDecision("r1", "image-alt", "https://health.example/news")},
			finding(func(f *Finding) { f.URL = "https://health.example/news/2026/budget" }), "r1"},
		{"the prefix itself", []Decision{ruleDecision("r1", "image-alt", "https://health.example/news")},
			finding(func(f *Finding) { f.URL = "https://health.example/news" }), "r1"},
		{"a query under the prefix", []Decision{ruleDecision("r1", "image-alt", "https://health.example/news")},
			finding(func(f *Finding) { f.URL = "https://health.example/news?page=2" }), "r1"},
		{"not past a path boundary", []Decision{ruleDecision("r1", "image-alt", "https://health.example/news")},
			finding(func(f *Finding) { f.URL = "https://health.example/newsletter" }), ""},
		{"a prefix ending in a slash", []Decision{ruleDecision("r1", "image-alt", "https://health.example/news/")},
			finding(func(f *Finding) { f.URL = "https://health.example/news/a" }), "r1"},
		{"a prefix ending in a slash does not cover the page without it", []Decision{ruleDecision("r1", "image-alt", "https://health.example/news/")},
			finding(func(f *Finding) { f.URL = "https://health.example/news" }), ""},
		{"a host as the prefix, spelt otherwise", []Decision{ruleDecision("r1", "image-alt", "HTTPS://Health.Example:443")},
			finding(func(f *Finding) { f.URL = "https://health.example/about" }), "r1"},
		{"another host", []Decision{ruleDecision("r1", "image-alt", "https://health.example")},
			finding(func(f *Finding) { f.URL = "https://health.example.evil/" }), ""},
		{"another scheme", []Decision{ruleDecision("r1", "image-alt", "http://health.example/")}, base, ""},
		{"the issue decision before a rule decision", []Decision{ruleDecision("r1", "image-alt", ""), issueDecision("d1", idA)}, base, "d1"},
		{"a rule decision when the issue decision has expired",
			[]Decision{ruleDecision("r1", "image-alt", ""), with(issueDecision("d1", idA), func(d *Decision) { d.ReviewBy = now.Add(-time.Hour) })},
			base, "r1"},
		{"the longest prefix first", []Decision{
			ruleDecision("r1", "image-alt", ""), ruleDecision("r2", "image-alt", "https://health.example/news/"),
			ruleDecision("r3", "image-alt", "https://health.example/"),
		}, finding(func(f *Finding) { f.URL = "https://health.example/news/a" }), "r2"},
		{"the longest prefix that has not expired", []Decision{
			ruleDecision("r1", "image-alt", ""), with(ruleDecision("r2", "image-alt", "https://health.example/news/"), func(d *Decision) { d.ReviewBy = now }),
		}, finding(func(f *Finding) { f.URL = "https://health.example/news/a" }), "r1"},
		{"equally specific: the latest decided", []Decision{
			ruleDecision("r1", "image-alt", ""), with(ruleDecision("r2", "image-alt", ""), func(d *Decision) { d.DecidedAt = now }),
		}, base, "r2"},
		{"equally specific and decided at once: by name", []Decision{ruleDecision("r2", "image-alt", ""), ruleDecision("r1", "image-alt", "")}, base, "r1"},
		{"two decisions of one issue: the latest decided", []Decision{
			issueDecision("d1", idA), with(issueDecision("d2", idA), func(d *Decision) { d.DecidedAt = now }),
		}, base, "d2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, ok := NewSet(tc.decisions).Covering(tc.finding, now)
			got := ""
			if ok {
				got = d.Ref
			}
			if got != tc.want {
				t.Errorf("covered by %q, want %q", got, tc.want)
			}
		})
	}
}

// TestZeroSetCoversNothing: a caller without decisions may pass nil.
func TestZeroSetCoversNothing(t *testing.T) {
	var s *Set
	if _, ok := s.Covering(base, now); ok {
		t.Error("a nil Set covered a finding")
	}
	if _, ok := (&Set{}).Covering(base, now); ok {
		t.Error("an empty Set covered a finding")
	}
}

func TestActiveAt(t *testing.T) {
	d := Decision{}
	if !d.ActiveAt(now) {
		t.Error("a decision without a review date is not active")
	}
	d.ReviewBy = now
	if d.ActiveAt(now) || !d.ActiveAt(now.Add(-time.Nanosecond)) {
		t.Error("a decision is active at or after its review date, or not before it")
	}
}

func TestDueForReview(t *testing.T) {
	day := 24 * time.Hour
	ds := []Decision{
		{Ref: "none"},
		{Ref: "later", ReviewBy: now.Add(30 * day)},
		{Ref: "b-soon", ReviewBy: now.Add(3 * day)},
		{Ref: "a-soon", ReviewBy: now.Add(3 * day)},
		{Ref: "past", ReviewBy: now.Add(-day)},
		{Ref: "at-the-end", ReviewBy: now.Add(7 * day)},
	}
	due := DueForReview(ds, now.Add(7*day))
	got := make([]string, 0, len(due))
	for _, d := range due {
		got = append(got, d.Ref)
	}
	if d := cmp.Diff([]string{"past", "a-soon", "b-soon"}, got); d != "" {
		t.Errorf("due for review (-want +got):\n%s", d)
	}
}

func TestUnderPages(t *testing.T) {
	for _, c := range []struct {
		page, prefix string
		want         bool
	}{
		{"https://health.example/news/2026", "", true},
		{"https://health.example/news", "https://health.example/news", true},
		{"https://HEALTH.example:443/news/2026", "https://health.example/news", true},
		{"https://health.example/newsletter", "https://health.example/news", false},
		{"https://health.example/", "https://health.example/news", false},
	} {
		if got := UnderPages(c.page, c.prefix); got != c.want {
			t.Errorf("UnderPages(%q, %q) = %v, want %v", c.page, c.prefix, got, c.want)
		}
	}
}

// TestCoveringAgreesWithUnderPages: for every page and set of prefixes,
// the decision a Set finds is the one the longest prefix the page is under
// (UnderPages) gives, the latest decided among equals: the lookup by path
// boundaries misses no prefix and covers nothing UnderPages does not.
func TestCoveringAgreesWithUnderPages(t *testing.T) {
	prefixes := []string{"", "https://health.example/", "https://health.example/news", "https://health.example/news/",
		"https://health.example/news/2026", "https://health.example/news?", "https://health.example/news?page=2",
		"https://health.example/a#b", "https://health.example/a", "/", "/x", "https://health.example/ne", "https://other.example/"}
	pages := []string{"https://health.example/", "https://health.example/news", "https://health.example/news/",
		"https://health.example/news/2026", "https://health.example/news/2026/budget", "https://health.example/news?page=2",
		"https://health.example/newsletter", "https://health.example/a#b", "https://health.example/a/#b", "https://health.example/a?x#y",
		"/x", "/x/y", "/", "", "https://other.example/z"}
	// Each subset of three prefixes (with repeats: two decisions of one
	// prefix, one of them expired).
	for i, p1 := range prefixes {
		for j, p2 := range prefixes {
			for _, p3 := range prefixes[max(i, j):] {
				ds := []Decision{
					ruleDecision("r1", "image-alt", p1),
					with(ruleDecision("r2", "image-alt", p2), func(d *Decision) { d.DecidedAt = now.Add(-time.Minute) }),
					with(ruleDecision("r3", "image-alt", p3), func(d *Decision) { d.ReviewBy = now }),
				}
				for _, page := range pages {
					want := ""
					best := -1
					for _, d := range ds[:2] { // r3 has expired
						if UnderPages(page, d.Pages) && len(pagesKey(d.Pages)) > best {
							want, best = d.Ref, len(pagesKey(d.Pages))
						} else if UnderPages(page, d.Pages) && len(pagesKey(d.Pages)) == best && d.Ref == "r2" {
							want = "r2" // decided later than r1
						}
					}
					d, ok := NewSet(ds).Covering(finding(func(f *Finding) { f.URL = page }), now)
					got := ""
					if ok {
						got = d.Ref
					}
					if got != want {
						t.Fatalf("prefixes %q, %q (and %q expired), page %q: covered by %q, want %q", p1, p2, p3, page, got, want)
					}
				}
			}
		}
	}
}
