package digest

import (
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

func TestSpanWords(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		from, last time.Time
		want       string
	}{
		{day(2026, 11, 23), day(2026, 11, 29), "23 to 29 November 2026"},
		{day(2026, 11, 28), day(2026, 12, 4), "28 November to 4 December 2026"},
		{day(2026, 12, 28), day(2027, 1, 3), "28 December 2026 to 3 January 2027"},
		{day(2026, 11, 29), day(2026, 11, 29).Add(23 * time.Hour), "29 November 2026"},
	} {
		if got := spanWords(tc.from, tc.last); got != tc.want {
			t.Errorf("%s..%s: %q, want %q", tc.from, tc.last, got, tc.want)
		}
	}
}

func TestScoreChange(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		now, before *float64
		want        string
	}{
		{f(80), f(75.5), "up 4.5 from 75.5"}, {f(70), f(75.5), "down 5.5 from 75.5"}, {f(75.5), f(75.5), "unchanged"},
		{nil, f(75.5), ""}, {f(80), nil, ""},
	} {
		if got := scoreChange(tc.now, tc.before); got != tc.want {
			t.Errorf("%v from %v: %q, want %q", tc.now, tc.before, got, tc.want)
		}
	}
}

func sampleDigest() Digest {
	score, before := 81.5, 76.0
	return Digest{
		Period: Period{From: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)},
		Organisations: []Organisation{{
			Namespace: "agencies", Name: "Ministry <b>of</b> Health", Link: "https://dash.example/organisations/agencies/Ministry%20of%20Health",
			Scans: 1, LatestScan: "agencies/weekly-9", Score: &score, ScoreBefore: &before, New: 3, Fixed: 1, FixedPageNotScanned: 2, Reopened: 0, Open: 14,
			Templates: []store.Template{{Rule: "image-alt", ElementHTML: `<img src="logo.png" onerror="alert(1)">`, Pages: 12}},
			Pages:     []Page{{URL: "https://health.example/forms", Open: 6}},
			Oldest: []Issue{{Rule: "label", Page: "https://health.example/forms", Width: 320, Since: time.Date(2026, 9, 1, 3, 0, 0, 0, time.UTC),
				Link: "https://dash.example/issues/agencies/00ff"}},
			DueForReview: []decision.Decision{{Ref: "agencies/carousel", Kind: decision.Accepted, Reason: "vendor fix due <soon>",
				ReviewBy: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), DecidedBy: "web-team@health.example"}},
		}},
	}
}

func TestRender(t *testing.T) {
	m, err := Render(sampleDigest())
	if err != nil {
		t.Fatal(err)
	}
	if want := "Ministry <b>of</b> Health: accessibility digest, 23 to 29 November 2026"; m.Subject != want {
		t.Errorf("subject %q, want %q", m.Subject, want)
	}
	for part, body := range map[string]string{"HTML": m.HTML, "text": m.Text} {
		for _, want := range []string{
			"1 scan in the period, the latest agencies/weekly-9. Score 81.5 (up 5.5 from 76.0); 14 issues open after it.",
			"3 new issues", "1 issue fixed, and 2 issues no longer seen because their page was not scanned", "0 issues that came back after a fix",
			"open since 1 September 2026", "accepted, review by 1 December 2026",
		} {
			if !strings.Contains(body, want) {
				t.Errorf("the %s part does not say %q", part, want)
			}
		}
	}
	for _, want := range []string{
		`<html lang="en">`, "<title>Ministry &lt;b&gt;of&lt;/b&gt; Health: accessibility digest", `<th scope="row">image-alt</th>`,
		`<code>&lt;img src=&#34;logo.png&#34; onerror=&#34;alert(1)&#34;&gt;</code>`, "vendor fix due &lt;soon&gt;",
		`<a href="https://dash.example/issues/agencies/00ff">label on https://health.example/forms at 320 px</a>`,
		`<a href="https://dash.example/organisations/agencies/Ministry%20of%20Health">Ministry &lt;b&gt;of&lt;/b&gt; Health on the dashboard</a>`,
	} {
		if !strings.Contains(m.HTML, want) {
			t.Errorf("the HTML part does not hold %q", want)
		}
	}
	if strings.Contains(m.HTML, "<b>of</b>") || strings.Contains(m.HTML, `onerror="`) {
		t.Error("the HTML part carries markup from the results unescaped")
	}
	if !strings.Contains(m.Text, `image-alt on 12 pages: <img src="logo.png" onerror="alert(1)">`) ||
		!strings.Contains(m.Text, "on the dashboard: https://dash.example/organisations/agencies/Ministry%20of%20Health") {
		t.Errorf("the text part:\n%s", m.Text)
	}
}

// TestSubjectIsOneLine: a name with line breaks cannot add a header.
func TestSubjectIsOneLine(t *testing.T) {
	d := sampleDigest()
	d.Organisations[0].Name = "Health\r\nBcc: everyone@example.com" + strings.Repeat("x", 500)
	m, err := Render(d)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(m.Subject, "\r\n") || len(m.Subject) > maxSubjectName+100 {
		t.Errorf("subject %q", m.Subject)
	}
	d.Organisations = append(d.Organisations, d.Organisations[0])
	if m, _ := Render(d); m.Subject != "Accessibility digest, 23 to 29 November 2026: 2 organisations" {
		t.Errorf("two organisations: subject %q", m.Subject)
	}
}

func TestRenderRefusesAnEmptyPeriod(t *testing.T) {
	d := sampleDigest()
	d.Period.To = d.Period.From
	if _, err := Render(d); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("an empty period: %v", err)
	}
}

func TestNoScanInThePeriod(t *testing.T) {
	d := sampleDigest()
	o := &d.Organisations[0]
	o.Scans, o.LatestScan, o.Score, o.Templates, o.Oldest, o.Open = 0, "", nil, nil, nil, 0
	m, err := Render(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"No scan of Ministry &lt;b&gt;of&lt;/b&gt; Health was recorded in the period; 0 issues open after its latest scan.",
		"No rule fails on the same element on two pages or more.", "No issue is open."} {
		if !strings.Contains(m.HTML, want) {
			t.Errorf("the HTML part does not say %q", want)
		}
	}
	if strings.Contains(m.HTML, "new issues") {
		t.Error("a period without scans lists changes")
	}
}

func TestKindWords(t *testing.T) {
	for k, want := range map[decision.Kind]string{decision.FalsePositive: "false positive", decision.Accepted: "accepted",
		decision.WontFix: "won't fix", "Other": "other"} {
		if got := kindWords(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
}

// TestSpanInWords: the period in the message's first line, one day or many.
func TestSpanInWords(t *testing.T) {
	day := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		from, to time.Time
		want     string
	}{
		{day.Add(18 * time.Hour), day.Add(19 * time.Hour), "What the scans recorded on 29 November 2026 changed"},
		{day.AddDate(0, 0, -6), day.AddDate(0, 0, 1), "What the scans recorded from 23 to 29 November 2026 changed"},
		{day.AddDate(0, 0, -2), day.AddDate(0, 0, 3), "What the scans recorded from 27 November to 1 December 2026 changed"},
	} {
		m, err := Render(Digest{Period: Period{From: c.from, To: c.to}, Organisations: []Organisation{{Name: "Org", Link: "https://d.example/o"}}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(m.Text, c.want) || !strings.Contains(m.HTML, c.want) {
			t.Errorf("%v–%v: the message does not say %q:\n%s", c.from, c.to, c.want, m.Text)
		}
	}
}
