package diff

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// largeScanRows is how many axe rows writeLargeScan writes (about).
const largeScanRows = 200_000

// writeLargeScan writes a results directory of about largeScanRows axe rows (19 per
// page and viewport, HTML of a few hundred bytes, as on real sites) plus a
// focus and a reflow row per page. variant 1 is the same site a week later:
// one page in 50 lost a failing element, one in 50 gained one, one in 20 has
// an added class, and every viewport dict has its keys in the other order.
func writeLargeScan(tb testing.TB, dir string, variant int) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	const perGroup = 19
	pages := largeScanRows / perGroup / 2
	open := func(name string, header []string) (*csv.Writer, func()) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			tb.Fatal(err)
		}
		bw := bufio.NewWriter(f)
		_, _ = bw.WriteString("\xef\xbb\xbf")
		w := csv.NewWriter(bw)
		_ = w.Write(header)
		return w, func() {
			w.Flush()
			if err := bw.Flush(); err != nil {
				tb.Fatal(err)
			}
			if err := f.Close(); err != nil {
				tb.Fatal(err)
			}
		}
	}
	axe, closeAxe := open("axe_core_audit.csv", []string{"organisation", "sector", "page_title", "base_url", "url", "viewport_size", "audit_id",
		"page_id", "audit_type", "issue_id", "description", "target", "num_issues", "help", "helpUrl", "id", "impact", "html", "tags", "best-practice"})
	focus, closeFocus := open(focusFile, []string{"organisation", "sector", "page_title", "base_url", "url", "viewport_size", "audit_id",
		"page_id", "audit_type", "helpUrl", "description", "html", "num_issues"})
	reflow, closeReflow := open("reflow_audit.csv", []string{"organisation", "sector", "page_title", "base_url", "url", "viewport_size",
		"audit_id", "page_id", "audit_type", "overflows", "num_issues", "overflow_amount_px"})
	log, closeLog := open("audit_log.csv", []string{"organisation", "base_url", "url", "sector"})
	rules := []string{"color-contrast", "link-name", "image-alt", "label", "region"}
	impacts := []string{"serious", "serious", "critical", "critical", "moderate"}
	for p := range pages {
		org := fmt.Sprintf("Organisation %d", p%300)
		base := fmt.Sprintf("https://site%d.example/", p%300)
		url := fmt.Sprintf("%spage/%d", base, p)
		title := fmt.Sprintf("Page %d", p)
		_ = log.Write([]string{org, base, url, "Sector"})
		for w, width := range []int{320, 1280} {
			vp := fmt.Sprintf("{'width': %d, 'height': %d}", width, 450+350*w+p%7)
			if variant == 1 {
				vp = fmt.Sprintf("{'height': %d, 'width': %d}", 450+350*w+p%11, width)
			}
			for i := range perGroup {
				if variant == 1 && p%50 == 0 && i == 3 {
					continue // fixed
				}
				class := "item"
				if variant == 1 && p%20 == 0 && i == 5 {
					class = "item item--new"
				}
				html := fmt.Sprintf(`<li class="%s"><a href="/page/%d/section/%d" data-tracking="nav-%d">%s</a></li>`, class, p, i, i, strings.Repeat("Section ", 20))
				_ = axe.Write([]string{org, "Sector", title, base, url, vp, fmt.Sprintf("%d_%d", p, w), fmt.Sprint(p), "AxeCoreAudit",
					fmt.Sprintf("%010x", p*1000+i+variant), "Ensure links have discernible text", fmt.Sprintf("/html/body/nav/ul/li[%d]/a", i+1), "1",
					"Links must have discernible text", "https://dequeuniversity.com/rules/axe/4.13/link-name?application=axeAPI",
					rules[i%len(rules)], impacts[i%len(impacts)], html, "['cat.name-role-value', 'wcag2a']", "No"})
			}
			if variant == 1 && p%50 == 1 {
				_ = axe.Write([]string{org, "Sector", title, base, url, vp, "x", fmt.Sprint(p), "AxeCoreAudit", "new", "d", "/html/body/main/img", "1",
					"Images must have alternative text", "https://dequeuniversity.com/rules/axe/4.13/image-alt", "image-alt", "critical", `<img src="new.png">`, "[]", "No"})
			}
			_ = focus.Write([]string{org, "Sector", title, base, url, vp, "a", fmt.Sprint(p), "FocusIndicatorAudit",
				"https://www.w3.org/WAI/WCAG22/Understanding/focus-visible.html", "Tab key press #1 did not show a focus indicator", `<a href="/">Home</a>`, "1"})
			if width == 320 {
				_ = reflow.Write([]string{org, "Sector", title, base, url, vp, "a", fmt.Sprint(p), "ReflowAudit", "True", "1", "100"})
			}
		}
	}
	closeAxe()
	closeFocus()
	closeReflow()
	closeLog()
}

// BenchmarkCompare200k compares two scans of about 200,000 axe rows each
// and writes every row as diff.json would (to io.Discard). Run it alone to
// measure time and peak memory:
//
//	go test ./internal/diff -run '^$' -bench Compare200k -benchtime 1x -benchmem
func BenchmarkCompare200k(b *testing.B) {
	dir := b.TempDir()
	writeLargeScan(b, filepath.Join(dir, "base"), 0)
	writeLargeScan(b, filepath.Join(dir, "cur"), 1)
	b.ResetTimer()
	for range b.N {
		rw := NewRowWriter(io.Discard)
		res, err := Compare(context.Background(), os.DirFS(filepath.Join(dir, "base")), os.DirFS(filepath.Join(dir, "cur")),
			Options{Baseline: "base", Rows: rw.Write})
		if err != nil {
			b.Fatal(err)
		}
		if res.Counts.Fixed == 0 || res.Counts.New == 0 || res.Counts.Unchanged == 0 {
			b.Fatalf("unexpected counts %+v", res.Counts)
		}
		b.ReportMetric(float64(res.Totals.BaselineIssues), "baseline-issues")
	}
}

// BenchmarkReadDocument200k reads back the diff.json of BenchmarkCompare200k's
// scans, as cwac_compare_scans does when it answers from the file.
func BenchmarkReadDocument200k(b *testing.B) {
	dir := b.TempDir()
	writeLargeScan(b, filepath.Join(dir, "base"), 0)
	writeLargeScan(b, filepath.Join(dir, "cur"), 1)
	spool, err := os.Create(filepath.Join(dir, "rows"))
	if err != nil {
		b.Fatal(err)
	}
	rw := NewRowWriter(spool)
	res, err := Compare(context.Background(), os.DirFS(filepath.Join(dir, "base")), os.DirFS(filepath.Join(dir, "cur")), Options{Rows: rw.Write})
	if err != nil {
		b.Fatal(err)
	}
	if err := rw.Flush(); err != nil {
		b.Fatal(err)
	}
	if _, err := spool.Seek(0, 0); err != nil {
		b.Fatal(err)
	}
	docPath := filepath.Join(dir, "diff.json")
	doc, err := os.Create(docPath)
	if err != nil {
		b.Fatal(err)
	}
	if err := WriteDocument(doc, res, spool); err != nil {
		b.Fatal(err)
	}
	info, _ := doc.Stat()
	_ = doc.Close()
	b.ResetTimer()
	for range b.N {
		f, err := os.Open(docPath)
		if err != nil {
			b.Fatal(err)
		}
		rows := 0
		if _, err := ReadDocument(bufio.NewReader(f), func(*Row) error { rows++; return nil }); err != nil {
			b.Fatal(err)
		}
		_ = f.Close()
		if rows == 0 {
			b.Fatal("no rows read")
		}
	}
	b.ReportMetric(float64(info.Size())/(1<<20), "diff.json-MiB")
}
