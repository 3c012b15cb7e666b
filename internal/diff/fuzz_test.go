package diff

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io/fs"
	"testing"
	"testing/fstest"
)

// fuzzAudits are the three issue audits with the columns the comparison reads.
var fuzzAudits = []struct {
	file   string
	header []string
}{
	{"axe_core_audit.csv", []string{"organisation", "page_title", "url", "viewport_size", "target", "num_issues", "id", "impact", "html"}},
	{focusFile, []string{"organisation", "page_title", "url", "viewport_size", "description", "html", "num_issues"}},
	{"reflow_audit.csv", []string{"organisation", "page_title", "url", "viewport_size", "num_issues"}},
}

// fuzzSides turns bytes into two results directories over a small alphabet
// (4 pages, 2 widths, 3 rules, 4 HTMLs, 4 targets), so that rows collide,
// match, go missing and repeat. The first byte says which pages each side's
// audit_log.csv lists; then every 4 bytes are one row.
func fuzzSides(data []byte) (base, cur fs.FS) {
	var pagesByte byte
	if len(data) > 0 {
		pagesByte, data = data[0], data[1:]
	}
	rows := [2][3][][]string{}
	for ; len(data) >= 4; data = data[4:] {
		b0, b1, b2, b3 := data[0], data[1], data[2], data[3]
		side, page, audit := int(b0&1), int(b0>>1)%4, int(b0>>4)%3
		url := fmt.Sprintf("https://site%d.example/p%d", page%2, page)
		vp := "{'width': 320, 'height': 450}"
		if b0&8 != 0 {
			vp = fmt.Sprintf("{'height': %d, 'width': 1280}", 600+int(b3))
		}
		org := fmt.Sprintf("org %d", page%2)
		title := "title"
		if b3&1 != 0 {
			title = "other title"
		}
		n := fmt.Sprint(int(b2 % 4))
		html := fmt.Sprintf("<el%d>", (b1>>2)%4)
		var rec []string
		switch audit {
		case 0:
			rule := fmt.Sprintf("rule-%d", b1%3)
			rec = []string{org, title, url, vp, fmt.Sprintf("/html/li[%d]", (b1>>4)%4), n, rule, []string{"critical", "minor", ""}[b1%3], html}
		case 1:
			desc := fmt.Sprintf("Tab key press #%d did not show a focus indicator", (b1>>4)%4)
			if b2&0x80 != 0 {
				desc = animatingText
			}
			rec = []string{org, title, url, vp, desc, html, n}
		default:
			rec = []string{org, title, url, vp, n}
		}
		rows[side][audit] = append(rows[side][audit], rec)
	}
	var out [2]fs.FS
	for s := range out {
		m := fstest.MapFS{}
		for a, au := range fuzzAudits {
			if len(rows[s][a]) > 0 {
				m[au.file] = csvFile(au.header, rows[s][a])
			}
		}
		var log [][]string
		for p := range 4 {
			if pagesByte&(1<<(s*4+p)) != 0 {
				log = append(log, []string{fmt.Sprintf("org %d", p%2), fmt.Sprintf("https://site%d.example/p%d", p%2, p)})
			}
		}
		if pagesByte&0x88 != 0x88 || s == 0 { // sometimes no audit log: pages come from the rows
			m["audit_log.csv"] = csvFile([]string{"organisation", "url"}, log)
		}
		out[s] = m
	}
	return out[0], out[1]
}

func csvFile(header []string, rows [][]string) *fstest.MapFile {
	var buf bytes.Buffer
	buf.WriteString("\xef\xbb\xbf")
	w := csv.NewWriter(&buf)
	_ = w.Write(header)
	_ = w.WriteAll(rows) // a bytes.Buffer does not fail
	return &fstest.MapFile{Data: buf.Bytes(), Mode: 0o644}
}

// FuzzCompare checks, on random row sets, that every issue of both sides is
// accounted for exactly once (baseline = fixed + unchanged + unstable;
// scan = new + unchanged + unstable, against each side's summary), that the
// rows, organisations and rules add up to the counts, and that diff.json
// reads back as written.
func FuzzCompare(f *testing.F) {
	f.Add([]byte{0xff, 0x00, 0x05, 0x01, 0x00, 0x01, 0x05, 0x01, 0x00})
	f.Add([]byte{0x0f, 0x10, 0x00, 0x01, 0x00, 0x11, 0x00, 0x81, 0x01, 0x20, 0x00, 0x01, 0x00})
	f.Add([]byte{0x77, 0x02, 0x13, 0x03, 0x00, 0x03, 0x13, 0x02, 0x01, 0x0a, 0x24, 0x01, 0x04, 0x0b, 0x28, 0x01, 0x05})
	f.Add(bytes.Repeat([]byte{0xff, 0x13, 0x27, 0x01, 0x02}, 20))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		base, cur := fuzzSides(data)
		res, rows := compareAll(t, base, cur)
		checkInvariants(t, base, cur, res, rows)
		c := res.Counts
		if c.NewElements > c.New || c.FixedElements > c.Fixed || c.NewOnAddedPages > c.New || c.FixedOnRemovedPages > c.Fixed {
			t.Errorf("elements or page counts exceed the issues: %+v", c)
		}
		for _, r := range rows {
			if r.Page != "" && r.Change != ChangeNew && r.Change != ChangeFixed {
				t.Errorf("a %s row is marked page %q", r.Change, r.Page)
			}
			if (r.Reason != "") != (r.Change == ChangeUnstable) {
				t.Errorf("row %+v: a reason belongs to unstable rows only", r)
			}
		}
	})
}

// FuzzReadDocument: diff.json comes from the results volume, which the MCP
// server does not trust; reading it must end in rows or an error, never a
// panic.
func FuzzReadDocument(f *testing.F) {
	f.Add([]byte(`{"format":"cwac-operator.diff/v1","baseline":"a","counts":{"new":1},"rows":[{"change":"new","issues":1}]}`))
	f.Add([]byte(`{"rows":[{}]}`))
	f.Add([]byte(`{"format":"cwac-operator.diff/v1","later":{"x":[1,2]},"rows":[]}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"format":"cwac-operator.diff/v1","by_rule":[{},{},{},{},{},{},{},{},{},{},{},{}],"rows":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows := 0
		read := func() (*Document, error) {
			return ReadDocument(bytes.NewReader(data), func(*Row) error { rows++; return nil })
		}
		_, _ = read() // once first: encoding/json caches what it learns of the types
		var doc *Document
		var err error
		// The memory bound: whatever the file, reading it allocates a few
		// times its size at most (a figure of "{}" decoded without the
		// budget took 27 times).
		if got, bound := allocated(func() { doc, err = read() }), uint64(5*len(data)+64<<10); got > bound {
			t.Fatalf("reading %d bytes allocated %d, more than %d", len(data), got, bound)
		}
		if err == nil && doc.Format != Format {
			t.Errorf("read a document of format %q", doc.Format)
		}
	})
}
