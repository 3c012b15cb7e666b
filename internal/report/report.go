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
	"encoding/csv"
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
var Weights = map[string]float64{"critical": 10, "serious": 5, "moderate": 2, "minor": 1}

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
		return nil, fmt.Errorf("%s: %w", results.PagesScannedFile, err)
	}
	err = eachIssue(fsys, func(audit string, row results.Row, n int64) error {
		o := get(row.Get("organisation"), row.Get("sector"))
		switch row.Get("impact") {
		case "critical":
			o.Critical += n
		case "serious":
			o.Serious += n
		case "moderate":
			o.Moderate += n
		case "minor":
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
		weighted := float64(o.Critical)*Weights["critical"] + float64(o.Serious)*Weights["serious"] +
			float64(o.Moderate)*Weights["moderate"] + float64(o.Minor)*Weights["minor"] + float64(o.Other)*OtherWeight
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
			return fmt.Errorf("%s: %w", e.Name(), err)
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

// LeaderboardCSV renders the leaderboard.
func LeaderboardCSV(rows []OrgScore) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"rank", "organisation", "sector", "base_urls", "pages_scanned", "critical", "serious", "moderate", "minor", "other_issues", "weighted_issues_per_page", "score"})
	for _, o := range rows {
		score := ""
		if o.Score != nil {
			score = strconv.FormatFloat(*o.Score, 'f', 1, 64)
		}
		_ = w.Write([]string{
			strconv.Itoa(o.Rank), SafeCell(o.Organisation), SafeCell(o.Sector), strconv.Itoa(o.BaseURLs), strconv.Itoa(o.Pages),
			strconv.FormatInt(o.Critical, 10), strconv.FormatInt(o.Serious, 10), strconv.FormatInt(o.Moderate, 10),
			strconv.FormatInt(o.Minor, 10), strconv.FormatInt(o.Other, 10), strconv.FormatFloat(o.WeightedPerPage, 'f', 1, 64), score,
		})
	}
	w.Flush()
	return buf.Bytes(), w.Error()
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

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"score": func(s *float64) string {
		if s == nil {
			return "—"
		}
		return strconv.FormatFloat(*s, 'f', 1, 64)
	},
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Accessibility report: {{.Meta.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1b1b1b;line-height:1.45}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2rem;border-bottom:2px solid #1b1b1b}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{border:1px solid #767676;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f0f0f0}td.n{text-align:right}code{font-size:.85em;word-break:break-all}
.critical{color:#a00000;font-weight:bold}.serious{color:#8a4b00;font-weight:bold}
.figures{display:flex;gap:1rem;flex-wrap:wrap;padding:0;list-style:none}.figures li{border:1px solid #767676;padding:.5rem 1rem}
.figures strong{display:block;font-size:1.5rem}
</style>
</head>
<body>
<main>
<h1>Accessibility report: {{.Meta.Title}}</h1>
<p>CWAC results <code>{{.Meta.ResultsDir}}</code>, report generated {{.Meta.GeneratedAt.UTC.Format "2006-01-02 15:04 UTC"}}.</p>
<ul class="figures">
<li><strong>{{.Summary.PagesScanned}}</strong> pages scanned</li>
<li><strong>{{.Summary.TotalIssues}}</strong> issues</li>
<li><strong>{{index .Summary.IssuesByImpact "critical"}}</strong> critical</li>
<li><strong>{{index .Summary.IssuesByImpact "serious"}}</strong> serious</li>
</ul>
{{with .Summary.UnscannedBaseURLs}}<p>Base URLs that yielded no page: {{range $i, $u := .}}{{if $i}}, {{end}}<code>{{$u}}</code>{{end}}.</p>{{end}}

<h2>Issues by audit</h2>
<table><thead><tr><th scope="col">Audit</th><th scope="col">Issues</th></tr></thead><tbody>
{{range $k, $v := .Summary.IssuesByAuditType}}<tr><td>{{$k}}</td><td class="n">{{$v}}</td></tr>{{else}}<tr><td colspan="2">No issues found.</td></tr>{{end}}
</tbody></table>

<h2>Most frequent problems</h2>
<table><thead><tr><th scope="col">Rule</th><th scope="col">Audit</th><th scope="col">Impact</th><th scope="col">What it means</th><th scope="col">Issues</th></tr></thead><tbody>
{{range .Summary.TopViolations}}<tr><td>{{.ID}}</td><td>{{.AuditType}}</td><td class="{{.Impact}}">{{.Impact}}</td><td>{{.Description}}</td><td class="n">{{.Count}}</td></tr>{{else}}<tr><td colspan="5">None.</td></tr>{{end}}
</tbody></table>

<h2>Leaderboard</h2>
<p>Score = 100 − weighted issues per page (critical {{index .Weights "critical"}}, serious {{index .Weights "serious"}}, moderate {{index .Weights "moderate"}}, minor {{index .Weights "minor"}}, other audits {{.OtherWeight}}); higher is better.</p>
<table><thead><tr><th scope="col">Rank</th><th scope="col">Organisation</th><th scope="col">Sector</th><th scope="col">Pages</th><th scope="col">Critical</th><th scope="col">Serious</th><th scope="col">Moderate</th><th scope="col">Minor</th><th scope="col">Other</th><th scope="col">Score</th></tr></thead><tbody>
{{range .Leaderboard}}<tr><td class="n">{{.Rank}}</td><td>{{.Organisation}}</td><td>{{.Sector}}</td><td class="n">{{.Pages}}</td><td class="n">{{.Critical}}</td><td class="n">{{.Serious}}</td><td class="n">{{.Moderate}}</td><td class="n">{{.Minor}}</td><td class="n">{{.Other}}</td><td class="n">{{score .Score}}</td></tr>{{end}}
</tbody></table>

<h2>Issues</h2>
<table><thead><tr><th scope="col">Page</th><th scope="col">Viewport</th><th scope="col">Rule</th><th scope="col">Impact</th><th scope="col">Description</th><th scope="col">Element</th><th scope="col">Count</th></tr></thead><tbody>
{{range .Issues}}<tr><td><code>{{.URL}}</code></td><td>{{.Viewport}}</td><td>{{if .HelpURL}}<a href="{{.HelpURL}}">{{.Rule}}</a>{{else}}{{.Rule}}{{end}}</td><td class="{{.Impact}}">{{.Impact}}</td><td>{{.Description}}</td><td><code>{{.HTML}}</code></td><td class="n">{{.Count}}</td></tr>{{else}}<tr><td colspan="7">No issues found.</td></tr>{{end}}
</tbody></table>
{{if .MoreIssues}}<p>{{.MoreIssues}} more issue rows are not shown; see the CSV files in the results directory.</p>{{end}}
</main>
</body>
</html>
`))
