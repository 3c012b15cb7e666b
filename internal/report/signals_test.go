package report

import (
	"os"
	"strings"
	"testing"
)

const signalsScan = "../results/testdata/signals-scan"

// The signals' sections of a scan with template issues, a missing and a
// duplicate title, broken responses of three organisations and reading levels.
func TestHTMLSignalsSections(t *testing.T) {
	got, err := HTML(os.DirFS(signalsScan), Meta{Title: "signals"})
	if err != nil {
		t.Fatal(err)
	}
	page := string(got)
	for _, want := range []string{
		`<li><a href="#templates">Fix once</a></li>`, `<li><a href="#readability">Reading level</a></li>`,
		// 4 template issues (link-name and color-contrast at two viewports) hold 14 issues
		"4 template issues hold 14 issues in CWAC's count.",
		`<tr><th scope="row">Alpha Ministry</th><td class="n">4</td><td class="n">14</td><td class="n">4</td></tr>`,
		`<code>link-name</code> Links must have discernible text</td><td><code class="html">&lt;a href=&#34;/&#34; class=&#34;logo&#34;&gt;&lt;/a&gt;</code></td>` +
			`<td>Alpha Ministry<br><code>http://alpha.example/</code></td><td>1280x800</td><td class="n">4</td><td class="n">4</td>`,
		"Of 6 pages, 1 has no title (missing, empty or blank",
		"and 3 share 1 title with another page of their site.",
		`<li><a href="http://alpha.example/news" rel="noreferrer">http://alpha.example/news</a> (Alpha Ministry)</li>`,
		`<tr><td>Alpha Ministry</td><td>Alpha Ministry<br><code>http://alpha.example/</code></td><td class="n">3</td>`,
		"4 responses (404 ×2, 403 ×1, 500 ×1)",
		`<tr><th scope="row">Beta Council</th><td class="n">2</td><td>404 ×1, 500 ×1</td></tr>`,
		`<tr><th scope="row">Gamma Agency</th><td class="n">1</td><td>403 ×1</td></tr>`,
		`<td class="url"><a href="http://beta.example/err" rel="noreferrer">http://beta.example/err</a></td><td class="n">500</td>` +
			`<td class="url"><a href="http://beta.example/x" rel="noreferrer">http://beta.example/x</a></td><td>Beta Council</td>`,
		"4 pages were measured.",
		`<tr><th scope="row">Alpha Ministry</th><td class="n">3</td><td class="n">8.0</td><td class="n">8.7</td><td class="n">10.0</td><td class="n">10.7</td></tr>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// The hardest page first.
	i := strings.Index(page, "http://alpha.example/about</code></td><td>Alpha Ministry</td><td class=\"n\">12.0</td>")
	if j := strings.Index(page, "<td class=\"n\">6.0</td>"); i < 0 || j < 0 || i > j {
		t.Errorf("reading levels not hardest first (%d, %d)", i, j)
	}
}

// A results directory without the signals' CSVs has none of their sections.
func TestHTMLWithoutSignals(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/pages_scanned.csv", []byte("\ufefforganisation,base_url,number_of_pages,sector\r\nO,http://o/,0,S\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := HTML(os.DirFS(dir), Meta{Title: "none"})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{`id="templates"`, `id="titles"`, `id="responses"`, `id="readability"`, `href="#templates"`} {
		if strings.Contains(string(got), id) {
			t.Errorf("report of no signals has %s", id)
		}
	}
}

func TestStatusListAndGrade(t *testing.T) {
	if got := statusList(map[string]int64{"500": 1, "404": 3, "403": 1}); got != "404 ×3, 403 ×1, 500 ×1" {
		t.Errorf("statusList = %q", got)
	}
	for in, want := range map[float64]string{5.25: "5.3", 5.249: "5.2", -1.25: "-1.3", 12: "12.0"} {
		if got := grade(in); got != want {
			t.Errorf("grade(%v) = %q, want %q", in, got, want)
		}
	}
}
