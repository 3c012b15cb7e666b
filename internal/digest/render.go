package digest

import (
	"bytes"
	_ "embed"
	"fmt"
	htmltemplate "html/template"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"
	"unicode"

	"github.com/a11y-dev/cwac-operator/internal/dashboard"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/mailer"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

var (
	//go:embed digest.html.tmpl
	htmlSource string
	//go:embed digest.txt.tmpl
	textSource string

	funcs = map[string]any{
		"date":   func(t time.Time) string { return t.UTC().Format("2 January 2006") },
		"plural": dashboard.Plural,
		"score":  dashboard.FormatScore,
		"change": scoreChange,
		"kind":   kindWords,
		"rule":   dashboard.RuleName,
		"cut":    func(n int, s string) string { return textcap.HeadMarked(s, n, "…") },
	}
	htmlPage = htmltemplate.Must(htmltemplate.New("digest").Funcs(funcs).Parse(htmlSource))
	textPage = texttemplate.Must(texttemplate.New("digest").Funcs(funcs).Parse(textSource))
)

// view is what the templates are given.
type view struct {
	Digest
	Subject string
	// Last is the period's last day (its end is the next day's start).
	Last time.Time
	// Span says the period in words: "on 29 November 2026", "from 23 to
	// 29 November 2026".
	Span string
}

// Render writes the digest's message (its ID left to the sender, which
// knows the recipient and the period it sends for).
func Render(d Digest) (mailer.Message, error) {
	if !d.Period.From.Before(d.Period.To) {
		return mailer.Message{}, fmt.Errorf("digest: the period from %s to %s is empty", d.Period.From.Format(time.RFC3339), d.Period.To.Format(time.RFC3339))
	}
	v := view{Digest: d, Last: d.Period.To.Add(-time.Nanosecond)}
	v.Subject = subject(v)
	v.Span = "from " + spanWords(v.Period.From, v.Last)
	if v.Period.From.UTC().Format(time.DateOnly) == v.Last.UTC().Format(time.DateOnly) {
		v.Span = "on " + spanWords(v.Period.From, v.Last)
	}
	var h, t bytes.Buffer
	if err := htmlPage.Execute(&h, v); err != nil {
		return mailer.Message{}, fmt.Errorf("digest: writing the HTML part: %w", err)
	}
	if err := textPage.Execute(&t, v); err != nil {
		return mailer.Message{}, fmt.Errorf("digest: writing the text part: %w", err)
	}
	return mailer.Message{Subject: v.Subject, HTML: h.String(), Text: t.String()}, nil
}

// maxSubjectName caps an organisation's name in a subject line.
const maxSubjectName = 120

// subject names the organisation (or how many) and the period, on one
// line whatever the name holds.
func subject(v view) string {
	span := spanWords(v.Period.From, v.Last)
	switch len(v.Organisations) {
	case 0:
		return "Accessibility digest, " + span + ": no organisation"
	case 1:
		name := strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return ' '
			}
			return r
		}, v.Organisations[0].Name)
		return textcap.HeadMarked(name, maxSubjectName, "…") + ": accessibility digest, " + span
	}
	return "Accessibility digest, " + span + ": " + dashboard.Count(int64(len(v.Organisations)), "organisation", "organisations")
}

// spanWords is "23 to 29 November 2026", "28 November to 4 December
// 2026", or one day.
func spanWords(from, last time.Time) string {
	from, last = from.UTC(), last.UTC()
	switch {
	case from.Format("2006-01-02") == last.Format("2006-01-02"):
		return last.Format("2 January 2006")
	case from.Year() != last.Year():
		return from.Format("2 January 2006") + " to " + last.Format("2 January 2006")
	case from.Month() != last.Month():
		return from.Format("2 January") + " to " + last.Format("2 January 2006")
	}
	return from.Format("2") + " to " + last.Format("2 January 2006")
}

// scoreChange says how the score moved since before the period, in words
// (a sign alone is easy to miss).
func scoreChange(now, before *float64) string {
	switch {
	case now == nil || before == nil:
		return ""
	case *now > *before:
		return "up " + strconv.FormatFloat(*now-*before, 'f', 1, 64) + " from " + dashboard.FormatScore(before)
	case *now < *before:
		return "down " + strconv.FormatFloat(*before-*now, 'f', 1, 64) + " from " + dashboard.FormatScore(before)
	}
	return "unchanged"
}

// kindWords says a decision's kind as a sentence would.
func kindWords(k decision.Kind) string {
	switch k {
	case decision.FalsePositive:
		return "false positive"
	case decision.Accepted:
		return "accepted"
	case decision.WontFix:
		return "won't fix"
	}
	return strings.ToLower(string(k))
}
