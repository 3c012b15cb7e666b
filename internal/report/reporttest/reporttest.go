// Package reporttest makes synthetic CWAC results of any size for the
// report's tests: a file system whose CSVs are written as they are read, so
// a million rows cost no disk and no memory. The columns are those of
// CWAC's real output (testdata/cwac-results); the values are made up.
package reporttest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// Spec shapes the results.
type Spec struct {
	Organisations int
	PagesPerOrg   int
	// RulesPerPage axe rules break on every page, ElementsPerRule times,
	// each element at every viewport.
	RulesPerPage, ElementsPerRule int
	// ExtraRules adds rules beyond the real ones listed in AxeRules, each
	// found ElementsPerRule times, on as many organisations' first pages:
	// enough of them push the report past its per-section caps.
	ExtraRules int
	// Viewports is 1 to 3 (320, 1280 and 1920 wide).
	Viewports int
	// Hostile fills the text cells with markup, script, quotes, formula
	// starters and javascript: addresses, at full length.
	Hostile bool
	// LongURLs makes every page address a long http(s) one, of the most
	// escaped character (& is &amp;): linked, so the costliest for the
	// report's size.
	LongURLs bool
	// Diff, when set, is written into summary.json as the baseline comparison.
	Diff *results.DiffCounts
}

// Rows is how many axe_core_audit.csv rows the spec makes.
func (s Spec) Rows() int {
	return (s.Organisations*s.PagesPerOrg*s.RulesPerPage*s.Viewports + s.ExtraRules) * s.ElementsPerRule
}

// AxeRule is one axe-core rule as CWAC writes it.
type AxeRule struct {
	ID, Impact, Help, Tags string
}

// AxeRules are real axe-core rules with their real tags.
var AxeRules = []AxeRule{
	{"image-alt", results.ImpactCritical, "Images must have alternative text", "['cat.text-alternatives', 'wcag2a', 'wcag111', 'section508', 'ACT']"},
	{"color-contrast", results.ImpactSerious, "Elements must meet minimum color contrast ratio thresholds", "['cat.color', 'wcag2aa', 'wcag143', 'ACT']"},
	{"link-name", results.ImpactSerious, "Links must have discernible text", "['cat.name-role-value', 'wcag2a', 'wcag244', 'wcag412', 'ACT']"},
	{"label", results.ImpactCritical, "Form elements must have labels", "['cat.forms', 'wcag2a', 'wcag412', 'section508', 'ACT']"},
	{"region", results.ImpactModerate, "All page content should be contained by landmarks", "['cat.keyboard', 'best-practice']"},
	{"target-size", results.ImpactSerious, "All touch targets must be 24px large, or leave sufficient space",
		"['cat.sensory-and-visual-cues', 'wcag22aa', 'wcag258']"},
	{"heading-order", results.ImpactModerate, "Heading levels should only increase by one", "['cat.semantics', 'best-practice']"},
	{"html-has-lang", results.ImpactSerious, "<html> element must have a lang attribute", "['cat.language', 'wcag2a', 'wcag311', 'ACT']"},
	{"meta-viewport", results.ImpactCritical, "Zooming and scaling must not be disabled", "['cat.sensory-and-visual-cues', 'wcag2aa', 'wcag144', 'ACT']"},
	{"empty-heading", results.ImpactMinor, "Headings should not be empty", "['cat.name-role-value', 'best-practice']"},
}

var viewports = []string{"{'width': 320, 'height': 450}", "{'width': 1280, 'height': 800}", "{'width': 1920, 'height': 1080}"}

const axeHeader = "organisation,sector,page_title,base_url,url,viewport_size,audit_id,page_id,audit_type,issue_id,description," +
	"target,num_issues,help,helpUrl,id,impact,html,tags,best-practice"

// FS returns the results as a read-only file system.
func (s Spec) FS() fs.FS {
	files := map[string]func(w *sink){
		"pages_scanned.csv":  s.pagesScanned,
		"axe_core_audit.csv": s.axe,
		"reflow_audit.csv":   s.reflow,
	}
	if s.Diff != nil {
		files[results.SummaryFile] = func(w *sink) {
			data, _ := json.Marshal(map[string]any{"diff": s.Diff}) // plain data: cannot fail
			w.str(string(data))
		}
	}
	return genFS(files)
}

// text is a cell's text: plain, or hostile and long.
func (s Spec) text(plain string, n int) string {
	if !s.Hostile {
		return plain
	}
	evil := `=cmd|' /C calc'!A0 <script>alert(1)</script><img src=x onerror=alert(2)> "quoted" & 'single' ` + plain + " "
	return strings.Repeat(evil, n/len(evil)+1)[:n]
}

func (s Spec) org(o int) string {
	if s.Hostile && o == 0 {
		return "=HYPERLINK(\"http://evil.example/\")"
	}
	if s.Hostile {
		return fmt.Sprintf("Organisation %02d ", o) + s.text("", 200)
	}
	return fmt.Sprintf("Organisation %02d", o)
}

func (s Spec) pageURL(o, p int) string {
	if s.LongURLs {
		u := fmt.Sprintf("https://org%02d.example.govt.nz/%04d/?", o, p)
		return u + strings.Repeat("&", 512-len(u))
	}
	if s.Hostile && p%2 == 1 {
		return "javascript:alert(document.domain)//" + s.text("", 100)
	}
	return fmt.Sprintf("https://org%02d.example.govt.nz/section/page-%04d.html", o, p)
}

func (s Spec) pagesScanned(w *sink) {
	w.str("\ufefforganisation,base_url,number_of_pages,sector\r\n")
	for o := range s.Organisations {
		w.record(s.org(o), fmt.Sprintf("https://org%02d.example.govt.nz/", o), fmt.Sprint(s.PagesPerOrg), s.text("Sector", 200))
	}
}

func (s Spec) axe(w *sink) {
	w.str("\ufeff" + axeHeader + "\r\n")
	id := 0
	for o := range s.Organisations {
		for p := range s.PagesPerOrg {
			for r := range s.RulesPerPage {
				rule := AxeRules[(r+p)%len(AxeRules)]
				for e := range s.ElementsPerRule {
					for v := range s.Viewports {
						if w.err != nil {
							return // the reader stopped reading
						}
						id++
						s.axeRow(w, o, p, v, id, rule, fmt.Sprintf("/html/body/main/div[%d]/p[%d]", r+1, e+1))
					}
				}
			}
		}
	}
	for x := range s.ExtraRules {
		rule := AxeRule{ID: fmt.Sprintf("extra-rule-%04d", x), Impact: results.ImpactMinor, Help: "A rule past the report's caps", Tags: "['best-practice']"}
		for e := range s.ElementsPerRule {
			id++
			s.axeRow(w, (x+e)%max(1, s.Organisations), 0, 0, id, rule, fmt.Sprintf("/html/body/div[%d]", e+1))
		}
	}
}

func (s Spec) axeRow(w *sink, o, p, v, id int, rule AxeRule, target string) {
	helpURL := "https://dequeuniversity.com/rules/axe/4.13/" + rule.ID + "?application=axeAPI"
	if s.Hostile && id%3 == 0 {
		helpURL = "javascript:alert('help')"
	}
	w.record(s.org(o), s.text("Sector", 200), s.text(fmt.Sprintf("Page %d of organisation %d", p, o), 300),
		fmt.Sprintf("https://org%02d.example.govt.nz/", o), s.pageURL(o, p), viewports[v], fmt.Sprintf("%d_%d", p, v), fmt.Sprint(p),
		"AxeCoreAudit", fmt.Sprintf("%010x", id), s.text(rule.Help, 400), s.text(target, 500), "1", s.text(rule.Help, 300), helpURL,
		rule.ID, rule.Impact, s.text(`<p class="x">element text</p>`, 3000), rule.Tags, "No")
}

func (s Spec) reflow(w *sink) {
	w.str("\ufefforganisation,sector,page_title,base_url,url,viewport_size,audit_id,page_id,audit_type,overflows,num_issues,overflow_amount_px\r\n")
	for o := range s.Organisations {
		for p := range s.PagesPerOrg {
			n := "0"
			if p%4 == 0 {
				n = "1"
			}
			w.record(s.org(o), "Sector", fmt.Sprintf("Page %d", p), fmt.Sprintf("https://org%02d.example.govt.nz/", o),
				s.pageURL(o, p), viewports[0], fmt.Sprintf("%d_0", p), fmt.Sprint(p), "ReflowAudit", "True", n, "100")
		}
	}
}

// sink writes a generated file, remembering the first error (the reader
// closed the pipe) so that the generator can stop.
type sink struct {
	w   *bufio.Writer
	err error
}

func (k *sink) str(v string) {
	if k.err == nil {
		_, k.err = k.w.WriteString(v)
	}
}

// record writes one CSV record, every cell quoted.
func (k *sink) record(cells ...string) {
	for i, c := range cells {
		if i > 0 {
			k.str(",")
		}
		k.str(`"` + strings.ReplaceAll(c, `"`, `""`) + `"`)
	}
	k.str("\r\n")
}

// genFS serves files made by writers, each run afresh whenever the file is opened.
type genFS map[string]func(w *sink)

func (g genFS) Open(name string) (fs.File, error) {
	if name == "." {
		return &dir{g: g}, nil
	}
	gen, ok := g[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	pr, pw := io.Pipe()
	go func() {
		k := &sink{w: bufio.NewWriterSize(pw, 64<<10)}
		gen(k)
		if k.err == nil {
			k.err = k.w.Flush()
		}
		_ = pw.CloseWithError(k.err) // nil: the reader sees the end of the file
	}()
	return &file{name: name, PipeReader: pr}, nil
}

// ReadDir lists the files, sorted by name.
func (g genFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	out := make([]fs.DirEntry, 0, len(g))
	for n := range g {
		out = append(out, fs.FileInfoToDirEntry(info{name: n}))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

type file struct {
	name string
	*io.PipeReader
}

func (f *file) Stat() (fs.FileInfo, error) { return info{name: f.name}, nil }

type dir struct{ g genFS }

func (d *dir) Stat() (fs.FileInfo, error) { return info{name: ".", dir: true}, nil }
func (d *dir) Read([]byte) (int, error)   { return 0, io.EOF }
func (d *dir) Close() error               { return nil }

type info struct {
	name string
	dir  bool
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return 0 }
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.dir }
func (i info) Sys() any           { return nil }
func (i info) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
