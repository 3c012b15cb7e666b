package report

import (
	"os"
	"strings"
	"testing"
	"time"
)

// The "What was scanned" section of a scan in CWAC's format with refused,
// challenged, unreachable and partial sites: a heading, a table with
// column and row headers, the incomplete organisations first, worst first,
// each with its reason, and the complete ones after.
func TestHTMLWhatWasScanned(t *testing.T) {
	got, err := HTML(os.DirFS("../results/testdata/completeness/mixed"), Meta{Title: "mixed", GeneratedAt: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	page := string(got)
	start := strings.Index(page, `<section id="scanned" aria-labelledby="scanned-h">`)
	if start < 0 {
		t.Fatal("no What was scanned section")
	}
	section := page[start : start+strings.Index(page[start:], "</section>")]
	for _, want := range []string{
		`<h2 id="scanned-h">What was scanned</h2>`,
		"<strong>8 organisations were not scanned completely</strong>\n(of 10)",
		"Each site was scanned up to 50 pages (max_links_per_domain).",
		`<th scope="col">Organisation</th><th scope="col">Completeness</th>`,
		`<tr><th scope="row">Firewall Org</th><td><span class="badge verdict-blocked">blocked</span></td><td class="n">0 of 1</td>`,
		"<li>https://waf.example.govt.nz/ blocked: the base URL answered 403 (refused)</li>",
		"<li>https://half-b.example.govt.nz/ unreachable: the base URL answered 503 (server error)</li>",
	} {
		if !strings.Contains(section, want) {
			t.Errorf("the section lacks %q", want)
		}
	}
	order := []string{">Bot Org<", ">Firewall Org<", ">Down Org<", ">Half Org<", ">Big Org<", ">CWAC Test Org<"}
	last := -1
	for _, name := range order {
		i := strings.Index(section, name)
		if i < last {
			t.Errorf("%s out of order (worst first, then by name)", name)
		}
		last = i
	}
	if !strings.Contains(page, `<li><a href="#scanned">What was scanned</a></li>`) {
		t.Error("no contents entry")
	}
}
