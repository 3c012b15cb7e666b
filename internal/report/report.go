// Package report turns a CWAC results directory into files people read: a
// self-contained HTML report and a per-organisation leaderboard CSV. CWAC
// no longer ships export_report_data.py or leaderboards, so these are ours.
//
// Leaderboard scoring: every issue (a row's num_issues) is weighted — axe-core
// issues by impact (critical 10, serious 5, moderate 2, minor 1), issues of
// other audits (reflow, focus indicator) 3 — and divided by the
// organisation's pages scanned; score = max(0, 100 − weighted issues per
// page), to one decimal. Higher is better; organisations with no page scanned
// have no score and rank last.
package report

import (
	"bytes"
	_ "embed" // the HTML template
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// File names the report is written under, in the results directory.
const (
	HTMLFile        = "report.html"
	LeaderboardFile = results.LeaderboardFile
)

// Weights of issues in the leaderboard score.
var Weights = map[string]float64{results.ImpactCritical: 10, results.ImpactSerious: 5, results.ImpactModerate: 2, results.ImpactMinor: 1}

// OtherWeight weighs issues of audits without an axe impact.
const OtherWeight = 3

// MaxIssueRows caps the issue table in the HTML report.
const MaxIssueRows = 1000

// OrgScore is one leaderboard row.
type OrgScore struct {
	Rank         int
	Organisation string
	Sector       string
	BaseURLs     int
	Pages        int
	Critical     int64
	Serious      int64
	Moderate     int64
	Minor        int64
	Other        int64
	// WeightedPerPage is the weighted issue count per page scanned.
	WeightedPerPage float64
	// Score is 0-100, higher is better; nil when no page was scanned.
	Score *float64
}

// Leaderboard ranks the organisations of a results directory.
func Leaderboard(fsys fs.FS) ([]OrgScore, error) {
	orgs := map[string]*OrgScore{}
	get := func(name, sector string) *OrgScore {
		o := orgs[name]
		if o == nil {
			o = &OrgScore{Organisation: name, Sector: sector}
			orgs[name] = o
		}
		if o.Sector == "" {
			o.Sector = sector
		}
		return o
	}
	err := results.EachRowFS(fsys, results.PagesScannedFile, func(_ *results.Reader, row results.Row) error {
		o := get(row.Get("organisation"), row.Get("sector"))
		o.BaseURLs++
		n, err := strconv.Atoi(strings.TrimSpace(row.Get("number_of_pages")))
		if err == nil {
			o.Pages += n
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err // EachRowFS names the file
	}
	err = eachIssue(fsys, func(audit string, row results.Row, n int64) error {
		o := get(row.Get("organisation"), row.Get("sector"))
		switch row.Get("impact") {
		case results.ImpactCritical:
			o.Critical += n
		case results.ImpactSerious:
			o.Serious += n
		case results.ImpactModerate:
			o.Moderate += n
		case results.ImpactMinor:
			o.Minor += n
		default:
			o.Other += n
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]OrgScore, 0, len(orgs))
	for _, o := range orgs {
		weighted := float64(o.Critical)*Weights[results.ImpactCritical] + float64(o.Serious)*Weights[results.ImpactSerious] +
			float64(o.Moderate)*Weights[results.ImpactModerate] + float64(o.Minor)*Weights[results.ImpactMinor] + float64(o.Other)*OtherWeight
		if o.Pages > 0 {
			o.WeightedPerPage = round1(weighted / float64(o.Pages))
			score := round1(math.Max(0, 100-weighted/float64(o.Pages)))
			o.Score = &score
		}
		out = append(out, *o)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.Score == nil) != (b.Score == nil) {
			return b.Score == nil
		}
		if a.Score != nil && *a.Score != *b.Score {
			return *a.Score > *b.Score
		}
		return a.Organisation < b.Organisation
	})
	for i := range out {
		out[i].Rank = i + 1
	}
	return out, nil
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// eachIssue streams every issue row (num_issues > 0) of every audit CSV.
func eachIssue(fsys fs.FS, fn func(audit string, row results.Row, n int64) error) error {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return fmt.Errorf("reading results directory: %w", err)
	}
	for _, e := range entries {
		audit, ok := results.AuditName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		err := results.EachRowFS(fsys, e.Name(), func(r *results.Reader, row results.Row) error {
			if !r.Has("num_issues") {
				return nil
			}
			n, err := strconv.ParseFloat(strings.TrimSpace(row.Get("num_issues")), 64)
			if err != nil || n <= 0 {
				return nil
			}
			return fn(audit, row, int64(n))
		})
		if err != nil {
			return err // EachRowFS names the file
		}
	}
	return nil
}

// SafeCell neutralises spreadsheet formulas: a cell starting with = + - @ or a
// control character is prefixed with a quote so that it stays text.
func SafeCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r\n", rune(s[0])) {
		return "'" + s
	}
	return s
}

// LeaderboardCSV renders the leaderboard. Every cell is quoted: a reader
// that splits cells on semicolons (a common spreadsheet locale setting)
// would otherwise read "x;=1+2" as a second cell holding a formula.
func LeaderboardCSV(rows []OrgScore) ([]byte, error) {
	var buf bytes.Buffer
	writeQuotedRecord(&buf, []string{
		"rank", "organisation", "sector", "base_urls", "pages_scanned",
		"critical", "serious", "moderate", "minor", "other_issues", "weighted_issues_per_page", "score",
	})
	for _, o := range rows {
		score := ""
		if o.Score != nil {
			score = strconv.FormatFloat(*o.Score, 'f', 1, 64)
		}
		writeQuotedRecord(&buf, []string{
			strconv.Itoa(o.Rank), SafeCell(o.Organisation), SafeCell(o.Sector), strconv.Itoa(o.BaseURLs), strconv.Itoa(o.Pages),
			strconv.FormatInt(o.Critical, 10), strconv.FormatInt(o.Serious, 10), strconv.FormatInt(o.Moderate, 10),
			strconv.FormatInt(o.Minor, 10), strconv.FormatInt(o.Other, 10), strconv.FormatFloat(o.WeightedPerPage, 'f', 1, 64), score,
		})
	}
	return buf.Bytes(), nil
}

// writeQuotedRecord writes one RFC 4180 record with every cell quoted.
func writeQuotedRecord(buf *bytes.Buffer, cells []string) {
	for i, c := range cells {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteByte('"')
		buf.WriteString(strings.ReplaceAll(c, `"`, `""`))
		buf.WriteByte('"')
	}
	buf.WriteByte('\n')
}

// Meta describes the scan in the report's heading.
type Meta struct {
	Title       string
	ResultsDir  string
	GeneratedAt time.Time
}

// Issue is one row of the HTML report's issue table.
type Issue struct {
	Audit, Organisation, URL, Viewport, Rule, Impact, Description, HTML, HelpURL string
	Count                                                                        int64
}

type htmlData struct {
	Meta        Meta
	Summary     *results.Summary
	Leaderboard []OrgScore
	Issues      []Issue
	MoreIssues  int
	Weights     map[string]float64
	OtherWeight float64
}

// HTML renders the self-contained report (inline CSS, no scripts, every value escaped).
func HTML(fsys fs.FS, meta Meta) ([]byte, error) {
	board, err := Leaderboard(fsys)
	if err != nil {
		return nil, err
	}
	return renderHTML(fsys, meta, board)
}

// renderHTML renders the report with a leaderboard already computed.
func renderHTML(fsys fs.FS, meta Meta, board []OrgScore) ([]byte, error) {
	summary, err := results.SummarizeFS(fsys, results.Options{})
	if err != nil {
		return nil, err
	}
	data := htmlData{Meta: meta, Summary: summary, Leaderboard: board, Weights: Weights, OtherWeight: OtherWeight}
	err = eachIssue(fsys, func(audit string, row results.Row, n int64) error {
		if len(data.Issues) >= MaxIssueRows {
			data.MoreIssues++
			return nil
		}
		rule, desc := row.Get("id"), row.Get("help")
		if rule == "" {
			rule, desc = audit, row.Get("description")
			if desc == "" {
				desc = results.RuleDescription(audit)
			}
		}
		vp := row.Get("viewport_size")
		if v, err := results.ParseViewport(vp); err == nil {
			vp = fmt.Sprintf("%d×%d", v.Width, v.Height)
		}
		data.Issues = append(data.Issues, Issue{
			Audit: audit, Organisation: row.Get("organisation"), URL: row.Get("url"), Viewport: vp,
			Rule: rule, Impact: row.Get("impact"), Description: desc, HTML: truncate(row.Get("html"), 300),
			HelpURL: safeURL(row.Get("helpUrl")), Count: n,
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("rendering report: %w", err)
	}
	return buf.Bytes(), nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// safeURL keeps only http(s) links (CWAC writes axe's helpUrl).
func safeURL(u string) string {
	if strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
		return u
	}
	return ""
}

// Generate writes report.html and leaderboard.csv with write and returns their names.
func Generate(fsys fs.FS, meta Meta, write func(name string, data []byte) error) ([]string, error) {
	board, err := Leaderboard(fsys)
	if err != nil {
		return nil, err
	}
	csvData, err := LeaderboardCSV(board)
	if err != nil {
		return nil, err
	}
	htmlData, err := renderHTML(fsys, meta, board) // the leaderboard is read once for both files
	if err != nil {
		return nil, err
	}
	if err := write(LeaderboardFile, csvData); err != nil {
		return nil, fmt.Errorf("writing %s: %w", LeaderboardFile, err)
	}
	if err := write(HTMLFile, htmlData); err != nil {
		return nil, fmt.Errorf("writing %s: %w", HTMLFile, err)
	}
	return []string{HTMLFile, LeaderboardFile}, nil
}

// pageTemplate is the HTML report: one file, no scripts, styles inline.
//
//go:embed report.html.tmpl
var pageTemplate string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"score": func(s *float64) string {
		if s == nil {
			return "—"
		}
		return strconv.FormatFloat(*s, 'f', 1, 64)
	},
}).Parse(pageTemplate))
