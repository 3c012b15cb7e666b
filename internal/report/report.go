// Package report turns a CWAC results directory into files people read: a
// self-contained HTML report and a per-organisation leaderboard CSV. CWAC
// no longer ships export_report_data.py or leaderboards, so these are ours.
//
// A Builder aggregates the results row by row as a results.RowVisitor, so
// that results.Walk reads each CSV once for the summary and the report;
// Render writes the files. Generate does both for callers with a file system.
//
// Counting: CWAC writes one row per element per viewport, so its count
// (num_issues, the summary's unit) counts an element found at two viewports
// twice. The report counts elements — an audit's rule, a page and the
// element's target (its HTML, or its description, when it has none) — once
// across viewports and lists the viewports; it shows CWAC's count beside.
//
// Leaderboard scoring (in CWAC's count, as the summary and the thresholds):
// every issue is weighted — axe-core issues by impact (critical 10, serious
// 5, moderate 2, minor 1), issues of other audits (reflow, focus indicator)
// 3 — and divided by the organisation's pages scanned; score = max(0, 100 −
// weighted issues per page), to one decimal. Higher is better.
// Organisations with equal scores share a rank and the next rank skips
// (1, 1, 3); organisations with no page scanned have no score and share
// the last rank. Only organisations scanned completely are ranked: the
// others follow, unranked, with their verdict and its reason, and a
// blocked or unreachable one shows no score (results.Verdict.ScoreShown).
//
// Safety: everything from the CSVs is escaped by html/template, only
// http(s) addresses become links, the page has no script, no event
// handler and no remote resource, and its Content-Security-Policy forbids
// them: opening a report cannot run anything a scanned page planted.
package report

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed" // the HTML template and its style sheet
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// File names the report is written under, in the results directory.
const (
	HTMLFile        = "report.html"
	LeaderboardFile = results.LeaderboardFile
)

// Meta describes the scan in the report's heading.
type Meta struct {
	Title       string
	ResultsDir  string
	GeneratedAt time.Time
	// Trend is the scan's history, newest last, this scan included (see
	// trend.go); with two points or more the report shows it.
	Trend []TrendPoint
	// Limits bound what Generate and HTML keep while they read the
	// results (zero: DefaultLimits).
	Limits Limits
}

// Render renders report.html and leaderboard.csv from what the builder has
// aggregated and the summary of the same results (its totals, base URLs and
// baseline comparison, Summary.Diff, which draws the new-versus-fixed chart).
func (b *Builder) Render(meta Meta, summary *results.Summary) (html, leaderboardCSV []byte, err error) {
	if summary == nil {
		return nil, nil, errors.New("rendering report: no summary")
	}
	board := b.RankedBoard(summary)
	if leaderboardCSV, err = LeaderboardCSV(board); err != nil {
		return nil, nil, err
	}
	v := b.view(meta, summary, board)
	v.CSS = template.CSS(styleSheet)
	var buf bytes.Buffer
	if err := reportTemplate.Execute(&buf, v); err != nil {
		return nil, nil, fmt.Errorf("rendering report: %w", err)
	}
	return buf.Bytes(), leaderboardCSV, nil
}

// WriteFiles renders both files and writes them with write; it returns their names.
func (b *Builder) WriteFiles(meta Meta, summary *results.Summary, write func(name string, data []byte) error) ([]string, error) {
	html, csvData, err := b.Render(meta, summary)
	if err != nil {
		return nil, err
	}
	if err := write(LeaderboardFile, csvData); err != nil {
		return nil, fmt.Errorf("writing %s: %w", LeaderboardFile, err)
	}
	if err := write(HTMLFile, html); err != nil {
		return nil, fmt.Errorf("writing %s: %w", HTMLFile, err)
	}
	return []string{HTMLFile, LeaderboardFile}, nil
}

// Generate reads a results directory once (summary and report together)
// and writes report.html and leaderboard.csv with write, returning their
// names. The baseline comparison, when there is one, is read from the
// summary.json the runner wrote beside the results.
func Generate(fsys fs.FS, meta Meta, write func(name string, data []byte) error) ([]string, error) {
	summary, b, err := build(fsys, meta.Limits)
	if err != nil {
		return nil, err
	}
	return b.WriteFiles(meta, summary, write)
}

// HTML renders the report alone (see Generate).
func HTML(fsys fs.FS, meta Meta) ([]byte, error) {
	summary, b, err := build(fsys, meta.Limits)
	if err != nil {
		return nil, err
	}
	html, _, err := b.Render(meta, summary)
	return html, err
}

func build(fsys fs.FS, lim Limits) (*results.Summary, *Builder, error) {
	sb, b := results.NewSummaryBuilder(results.Options{MaxLinksPerDomain: results.MaxLinksOf(fsys)}), NewBuilderWithLimits(lim)
	if err := results.Walk(context.Background(), fsys, sb, b); err != nil {
		return nil, nil, err
	}
	summary := sb.Summary()
	summary.Diff = savedDiff(fsys)
	return summary, b, nil
}

// maxSummaryJSON caps the summary.json read for its baseline comparison.
const maxSummaryJSON = 4 << 20

// savedDiff is the baseline comparison of summary.json, or nil when there
// is none (no file, no diff, or a file that does not parse or is past
// results.SummaryLimits: the report then goes without its new-versus-fixed
// section rather than failing).
func savedDiff(fsys fs.FS) *results.DiffCounts {
	f, err := fsys.Open(results.SummaryFile)
	if err != nil {
		return nil
	}
	defer func() { _ = f.Close() }() // read only
	data, err := io.ReadAll(io.LimitReader(f, maxSummaryJSON+1))
	if err != nil || len(data) > maxSummaryJSON {
		return nil
	}
	var saved struct {
		Diff *results.DiffCounts `json:"diff"`
	}
	if err := results.DecodeBounded(data, results.SummaryLimits, &saved); err != nil {
		return nil
	}
	return saved.Diff
}

// styleSheet is the report's only style, inline; the Content-Security-Policy
// allows it by its hash and nothing else.
//
//go:embed report.css
var styleSheet string

// contentSecurityPolicy forbids scripts, remote loads, forms and frames.
var contentSecurityPolicy = func() string {
	sum := sha256.Sum256([]byte(styleSheet))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
		"img-src 'none'; base-uri 'none'; form-action 'none'"
}()

// pageTemplate is the HTML report: one file, no scripts, styles inline.
//
//go:embed report.html.tmpl
var pageTemplate string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"score":  formatScore,
	"n":      number,
	"cut":    func(n int, s string) string { return textcap.Head(s, n) }, // {{cut 80 .Label}}: the text last
	"csp":    func() string { return contentSecurityPolicy },
	"plural": plural,
	"join":   strings.Join,
	"grade":  grade,
}).Parse(pageTemplate + signalsTemplate + completenessTemplate))

// number writes an int or int64 with thousands separators.
func number(n any) string {
	switch v := n.(type) {
	case int:
		return thousands(int64(v))
	case int64:
		return thousands(v)
	}
	return fmt.Sprint(n)
}

// plural is "1 page" or "2 pages".
func plural(n any, one, many string) string {
	s := number(n)
	if s == "1" {
		return s + " " + one
	}
	return s + " " + many
}
