package diff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// The rule must not change the ids of issues already in a history: these
// are ids the history stored before the rule moved here.
func TestIssueIDIsTheHistorysID(t *testing.T) {
	for ordinal, want := range []string{"357ed76805266a1611325b9def8354b0", "bd843892402cbc18316118f26da2dc63"} {
		p := PartsOf("ns-a", "Org One", "https://a.example/x", 1280, AuditRule("axe_core_audit", "color-contrast"), 11, 22)
		if got := NewIssueID(p, ordinal).String(); got != want {
			t.Errorf("ordinal %d: id %s, want %s", ordinal, got, want)
		}
	}
}

func TestIssueIDParts(t *testing.T) {
	parts := func(ns, org, url string, width int, audit, rule, html, target string) IssueParts {
		return PartsOf(ns, org, PageKey(url), width, AuditRule(audit, rule), ElementHash(html), ElementHash(target))
	}
	a := NewIssueID(parts("ns", "org", "https://example.org:443/a", 320, "axe_core_audit", "rule", "<p>", "/p"), 0)
	if b := NewIssueID(parts("ns", "org", "https://EXAMPLE.org/a", 320, "axe_core_audit", "rule", "<p>", "/p"), 0); a != b {
		t.Error("two spellings of one page gave two ids")
	}
	if b := NewIssueID(parts("ns", "org", "https://example.org/", 320, "title_audit", "", "", ""), 0); b !=
		NewIssueID(parts("ns", "org", "https://example.org/", 320, "title_audit", "title_audit", "", ""), 0) {
		t.Error("an audit without rule ids: its rule is the audit's name")
	}
	others := map[string]IssueParts{
		"namespace":    parts("ns2", "org", "https://example.org/a", 320, "axe_core_audit", "rule", "<p>", "/p"),
		"organisation": parts("ns", "org2", "https://example.org/a", 320, "axe_core_audit", "rule", "<p>", "/p"),
		"page":         parts("ns", "org", "https://example.org/b", 320, "axe_core_audit", "rule", "<p>", "/p"),
		"width":        parts("ns", "org", "https://example.org/a", 1280, "axe_core_audit", "rule", "<p>", "/p"),
		"audit":        parts("ns", "org", "https://example.org/a", 320, "focus_indicator_audit", "rule", "<p>", "/p"),
		"rule":         parts("ns", "org", "https://example.org/a", 320, "axe_core_audit", "rule2", "<p>", "/p"),
		"html":         parts("ns", "org", "https://example.org/a", 320, "axe_core_audit", "rule", "<div>", "/p"),
		"target":       parts("ns", "org", "https://example.org/a", 320, "axe_core_audit", "rule", "<p>", "/div"),
		"a boundary":   parts("n", "sorg", "https://example.org/a", 320, "axe_core_audit", "rule", "<p>", "/p"),
	}
	for name, p := range others {
		if NewIssueID(p, 0) == a {
			t.Errorf("another %s, the same id", name)
		}
	}
	if NewIssueID(parts("ns", "org", "https://example.org/a", 320, "axe_core_audit", "rule", "<p>", "/p"), 1) == a {
		t.Error("ordinals 0 and 1 share an id")
	}
	// Long names are cut as the history stores them: past the cut, one id.
	long := strings.Repeat("o", IdentityNameBytes)
	if NewIssueID(PartsOf("ns", long+"x", "p", 1, "r", 0, 0), 0) != NewIssueID(PartsOf("ns", long+"y", "p", 1, "r", 0, 0), 0) {
		t.Error("organisation names that differ past the cut gave two ids")
	}
	page := strings.Repeat("p", IdentityURLBytes)
	if NewIssueID(PartsOf("ns", "o", page+"x", 1, "r", 0, 0), 0) != NewIssueID(PartsOf("ns", "o", page+"y", 1, "r", 0, 0), 0) {
		t.Error("page keys that differ past the cut gave two ids")
	}
	for in, want := range map[string]string{
		"a\x00b\xff": "a\uFFFDb\uFFFD",
		"\x00ab":     "\uFFFDab", // valid UTF-8, a NUL first
		"ab\x00":     "ab\uFFFD",
		"ab\xff":     "ab\uFFFD",
		"a\u00e9b":   "a\u00e9b",
	} {
		if got := IdentityText(in, 10); got != want {
			t.Errorf("IdentityText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIssueNamer(t *testing.T) {
	p := PartsOf("ns", "org", "https://example.org/", 320, AuditRule("axe_core_audit", "image-alt"), 1, 2)
	q := p
	q.Target = 3
	held := NewIssueID(p, 1) // an issue whose element has since changed holds ordinal 1
	n := NewIssueNamer([]IssueID{held})
	got := []IssueID{n.Name(p), n.Name(q), n.Name(p), n.Name(p)}
	want := []IssueID{NewIssueID(p, 0), NewIssueID(q, 0), NewIssueID(p, 2), NewIssueID(p, 3)}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("name %d: %s, want %s", i, got[i], want[i])
		}
	}
	n.Hold(NewIssueID(q, 1))
	if got := n.Name(q); got != NewIssueID(q, 2) {
		t.Errorf("after Hold: %s, want ordinal 2's %s", got, NewIssueID(q, 2))
	}
}

// TestIssueNamerLeavesHeldInOrder: the namer sorts its own copy of the ids
// held, never the caller's (a comparison's baseline ids are read by
// position), and finds each of them wherever it was in the list.
func TestIssueNamerLeavesHeldInOrder(t *testing.T) {
	parts := make([]IssueParts, 40)
	held := make([]IssueID, len(parts))
	for i := range parts {
		parts[i] = PartsOf("ns", "org", "https://example.org/", 320, AuditRule("axe_core_audit", "image-alt"), uint64(i), 0)
		held[i] = NewIssueID(parts[i], 0)
	}
	given := slices.Clone(held)
	n := NewIssueNamer(held)
	for i, p := range parts {
		if got := n.Name(p); got != NewIssueID(p, 1) {
			t.Errorf("parts %d: named %s, want ordinal 1's (ordinal 0 is held)", i, got)
		}
	}
	if !slices.Equal(held, given) {
		t.Error("the caller's held ids were reordered")
	}
}

func TestIssueIDsFile(t *testing.T) {
	ids := []IssueID{NewIssueID(IssueParts{}, 0), NewIssueID(IssueParts{}, 1)}
	var buf bytes.Buffer
	if err := WriteIssueIDs(&buf, ids); err != nil {
		t.Fatal(err)
	}
	want := issueIDsHeader + "\n" + ids[0].String() + "\n" + ids[1].String() + "\n"
	if buf.String() != want {
		t.Errorf("written:\n%s\nwant:\n%s", buf.String(), want)
	}
	got, err := ReadIssueIDs(fstest.MapFS{IssueIDsFile: {Data: buf.Bytes()}})
	if err != nil || len(got) != 2 || got[0] != ids[0] || got[1] != ids[1] {
		t.Errorf("read back %v, %v", got, err)
	}
	if got, err := ReadIssueIDs(fstest.MapFS{}); got != nil || err != nil {
		t.Errorf("no file: %v, %v; want nil, nil", got, err)
	}
	empty, err := ReadIssueIDs(fstest.MapFS{IssueIDsFile: {Data: []byte(issueIDsHeader + "\n")}})
	if err != nil || empty == nil || len(empty) != 0 {
		t.Errorf("a scan without issues: %v, %v; want no ids, not nil", empty, err)
	}
	id := ids[0].String()
	for _, tc := range []struct {
		name, data string
		limit      int
		want       string
	}{
		{"empty", "", 10, "not an issue ids file"},
		{"another header", "cwac-operator.issue-ids/v2 axe_core_audit.csv\n", 10, "not an issue ids file"},
		{"a long first line", strings.Repeat("x", 200) + "\n", 10, "not an issue ids file"},
		{"a short id", issueIDsHeader + "\n" + id[:31] + "\n", 10, "line 2: issue id"},
		{"upper case", issueIDsHeader + "\n" + strings.ToUpper(id) + "\n", 10, "line 2: issue id"},
		{"not hex", issueIDsHeader + "\n" + id + "\n" + strings.Repeat("g", 32) + "\n", 10, "line 3: issue id"},
		{"a long line", issueIDsHeader + "\n" + strings.Repeat("a", 100) + "\n", 10, "line 2: longer than an id"},
		{"too many", issueIDsHeader + "\n" + id + "\n" + id + "\n", 1, "more than 1 ids"},
	} {
		if _, err := readIssueIDs(strings.NewReader(tc.data), tc.limit); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	// The limit is a count of ids: exactly that many are read.
	if got, err := readIssueIDs(strings.NewReader(issueIDsHeader+"\n"+id+"\n"+id+"\n"), 2); err != nil || len(got) != 2 {
		t.Errorf("two ids at a limit of two: %d ids, %v", len(got), err)
	}
	if _, err := ParseIssueID(id); err != nil {
		t.Errorf("ParseIssueID(%s): %v", id, err)
	}
}

// named is d's results with the issue ids file a scan (of namespace a11y)
// without a baseline keeps (every id new), and those ids.
func named(t *testing.T, d resultsDir) (fs.FS, []IssueID) {
	t.Helper()
	res, err := Compare(context.Background(), fstest.MapFS{}, d.fs(t), Options{Namespace: "a11y"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	ids := idsOf(t, res)
	if err := WriteIssueIDs(&buf, ids); err != nil {
		t.Fatal(err)
	}
	m := d.fs(t).(fstest.MapFS)
	m[IssueIDsFile] = &fstest.MapFile{Data: buf.Bytes()}
	return m, ids
}

// editedWeek is the real scan and the same site a week on: one element
// edited, one moved, one fixed, one new (each at both widths).
func editedWeek(t *testing.T) (base, cur resultsDir) {
	t.Helper()
	base = loadReal(t)
	cur = base.clone()
	cur.edit("axe_core_audit.csv", func(r row) bool {
		switch {
		case r.get("id") == "color-contrast": // edited: matched on its target
			r.set("html", strings.Replace(r.get("html"), `class="faint"`, `class="faint lead"`, 1))
		case r.get("id") == "link-name": // moved: matched on its HTML
			r.set("target", "/html/body/main/div/p/a")
		case r.is(home, "") && r.get("id") == "image-alt": // fixed
			return false
		case r.is(clean, ""): // new
			r.set("num_issues", "1")
			r.set("id", "image-alt")
			r.set("impact", "critical")
			r.set("html", `<img src="hero.jpg">`)
			r.set("target", "/html/body/main/img")
		}
		return true
	})
	return base, cur
}

// An issue the comparison calls unchanged keeps its baseline id, however
// its element was edited or moved; a fixed one is named by its baseline
// id; a new one gets an id no baseline issue holds.
func TestIssueIDsCarriedForward(t *testing.T) {
	base, cur := editedWeek(t)
	baseFS, baseIDs := named(t, base)
	if len(baseIDs) != 12 {
		t.Fatalf("%d baseline ids, want one for each of the 12 axe issue rows", len(baseIDs))
	}
	idOf := map[string]string{} // the baseline's id of each page, width and rule (one row each in this scan)
	res, rows := compareWith(t, baseFS, cur.fs(t), Options{Namespace: "a11y"})
	if res.IssueIDsProblem != "" {
		t.Fatalf("%q", res.IssueIDsProblem)
	}
	baseRows := rowsOf(t, fstest.MapFS{}, baseFS)
	for _, r := range baseRows {
		idOf[fmt.Sprint(r.URL, r.ViewportWidth, r.Rule)] = r.IssueID
	}
	held := map[string]bool{}
	for _, id := range baseIDs {
		held[id.String()] = true
	}
	var curIDs []string
	counts := map[Change]int{}
	for _, r := range rows {
		if r.Audit != "axe_core_audit" {
			if r.IssueID != "" {
				t.Errorf("a %s row has an id: only %s's rows are named", r.Audit, IssueIDsAudit)
			}
			continue
		}
		counts[r.Change]++
		same := idOf[fmt.Sprint(r.URL, r.ViewportWidth, r.Rule)]
		switch r.Change {
		case ChangeUnchanged, ChangeFixed:
			if r.IssueID != same {
				t.Errorf("%s %s %d %s: id %s, want the baseline's %s", r.Change, r.URL, r.ViewportWidth, r.Rule, r.IssueID, same)
			}
		case ChangeNew:
			if held[r.IssueID] || r.IssueID == "" {
				t.Errorf("new %s %d %s: id %q is empty or a baseline issue's", r.URL, r.ViewportWidth, r.Rule, r.IssueID)
			}
		}
		if r.Change != ChangeFixed {
			curIDs = append(curIDs, r.IssueID)
		}
	}
	if counts[ChangeUnchanged] != 10 || counts[ChangeFixed] != 2 || counts[ChangeNew] != 2 {
		t.Errorf("axe rows by change %v, want 10 unchanged, 2 fixed, 2 new", counts)
	}
	ids := idsOf(t, res)
	if len(ids) != len(curIDs) {
		t.Fatalf("%d ids for %d issue rows", len(ids), len(curIDs))
	}
	for i, id := range ids {
		if id.String() != curIDs[i] {
			t.Errorf("row %d: Result.IssueIDs says %s, diff.json %s", i, id, curIDs[i])
		}
	}

}

// Without the baseline's file, or with one that is not its own, ids start
// afresh, as a scan without a baseline names them.
func TestIssueIDsStartAfresh(t *testing.T) {
	base, cur := editedWeek(t)
	_, baseIDs := named(t, base)
	_, fresh := named(t, cur)
	noFile := base.fs(t)
	short, _ := named(t, base)
	short.(fstest.MapFS)[IssueIDsFile] = &fstest.MapFile{Data: []byte(issueIDsHeader + "\n" + baseIDs[0].String() + "\n")}
	broken, _ := named(t, base)
	broken.(fstest.MapFS)[IssueIDsFile] = &fstest.MapFile{Data: []byte("ids\n")}
	lines := make([]string, 0, len(baseIDs)+1)
	for _, id := range baseIDs {
		lines = append(lines, id.String())
	}
	longer, _ := named(t, base)
	longer.(fstest.MapFS)[IssueIDsFile] = &fstest.MapFile{Data: []byte(issueIDsHeader + "\n" + strings.Join(append(lines, lines[0]), "\n") + "\n")}
	badLine, _ := named(t, base)
	withBadLine := append(slices.Clone(lines[:5]), "not an id")
	withBadLine = append(withBadLine, lines[5:]...)
	badLine.(fstest.MapFS)[IssueIDsFile] = &fstest.MapFile{Data: []byte(issueIDsHeader + "\n" + strings.Join(withBadLine, "\n") + "\n")}
	for _, tc := range []struct {
		name    string
		base    fs.FS
		problem string
	}{
		{"no file", noFile, ""},
		{"another scan's", short, "the baseline's issue_ids.txt names 1 issue rows, its axe_core_audit.csv has 12"},
		{"one id more than its rows", longer, "the baseline's issue_ids.txt names 13 issue rows, its axe_core_audit.csv has 12"},
		{"unreadable", broken, "the baseline's issue_ids.txt: not an issue ids file"},
		{"a line not an id among its ids", badLine, `the baseline's issue_ids.txt: line 7: issue id "not an id" is not an issue's id`},
	} {
		res, rows := compareWith(t, tc.base, cur.fs(t), Options{Namespace: "a11y"})
		if !strings.HasPrefix(res.IssueIDsProblem, tc.problem) || (tc.problem == "") != (res.IssueIDsProblem == "") {
			t.Errorf("%s: problem %q; want %q", tc.name, res.IssueIDsProblem, tc.problem)
			continue
		}
		ids := idsOf(t, res)
		if len(ids) != len(fresh) {
			t.Fatalf("%s: %d ids, want %d", tc.name, len(ids), len(fresh))
		}
		for i := range fresh {
			if ids[i] != fresh[i] {
				t.Errorf("%s: id %d is %s, want the fresh %s", tc.name, i, ids[i], fresh[i])
			}
		}
		for _, r := range rows {
			if r.Change == ChangeFixed && r.IssueID != "" {
				t.Errorf("%s: a fixed row has the id %s of a baseline whose ids are not used", tc.name, r.IssueID)
			}
		}
	}
}

// rowsOf is every row Compare passes.
func rowsOf(t *testing.T, base, cur fs.FS) []Row {
	t.Helper()
	var rows []Row
	if _, err := Compare(context.Background(), base, cur, Options{Namespace: "a11y", Rows: func(r *Row) error {
		rows = append(rows, *r)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	return rows
}

// FuzzReadIssueIDs: whatever the file holds, the reader stops at its
// limit, and what it takes writes back to a file it reads alike.
func FuzzReadIssueIDs(f *testing.F) {
	id := NewIssueID(IssueParts{Namespace: "ns"}, 0).String()
	f.Add(issueIDsHeader + "\n" + id + "\n")
	f.Add(issueIDsHeader + "\n" + id + "\n" + strings.ToUpper(id) + "\n")
	f.Add(issueIDsHeader + "\r\n" + id)
	f.Add("")
	f.Fuzz(func(t *testing.T, data string) {
		const limit = 8
		ids, err := readIssueIDs(strings.NewReader(data), limit)
		if err != nil {
			return
		}
		if len(ids) > limit {
			t.Fatalf("%d ids past the limit of %d", len(ids), limit)
		}
		var buf bytes.Buffer
		if err := WriteIssueIDs(&buf, ids); err != nil {
			t.Fatal(err)
		}
		back, err := readIssueIDs(&buf, limit)
		if err != nil || len(back) != len(ids) {
			t.Fatalf("written back: %d ids, %v; want %d", len(back), err, len(ids))
		}
		for i := range ids {
			if back[i] != ids[i] {
				t.Fatalf("id %d: %s written back as %s", i, ids[i], back[i])
			}
		}
	})
}

// TestAuditRuleParts: a row's rule is its id, or its audit's name; an id's
// rule part is that rule, cut to the identity's length, and splits back
// into the audit and the rule.
func TestAuditRuleParts(t *testing.T) {
	long := strings.Repeat("r", IdentityNameBytes+10)
	for _, c := range []struct {
		audit, id, rule, split string
	}{
		{"axe_core_audit", "image-alt", "image-alt", "image-alt"},
		{"focus_indicator_audit", "", "focus_indicator_audit", "focus_indicator_audit"},
		{"axe_core_audit", long, long, IdentityText(long, IdentityNameBytes)},
	} {
		if got := RuleOf(c.audit, c.id); got != c.rule {
			t.Errorf("RuleOf(%q, %q) = %q, want %q", c.audit, c.id, got, c.rule)
		}
		audit, rule := SplitAuditRule(AuditRule(c.audit, c.id))
		if audit != c.audit || rule != c.split {
			t.Errorf("SplitAuditRule(AuditRule(%q, %q)) = %q, %q; want %q, %q", c.audit, c.id, audit, rule, c.audit, c.split)
		}
	}
}

// TestIssueNamerAsEveryIDHeld: the namer gives the ids a namer holding
// every id it gave would (the rule as docs/history.md says it: the first
// ordinal whose id no other issue holds), for any mix of names and holds
// over a few parts, among them ids of ordinals the namer has yet to reach.
func TestIssueNamerAsEveryIDHeld(t *testing.T) {
	parts := make([]IssueParts, 3)
	for i := range parts {
		parts[i] = PartsOf("ns", "org", "https://example.org/", 320, AuditRule("axe_core_audit", "image-alt"), uint64(i), 0)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		count := rng.IntN(4)
		held := make([]IssueID, 0, count)
		for range count {
			held = append(held, NewIssueID(parts[rng.IntN(len(parts))], rng.IntN(6)))
		}
		n := NewIssueNamer(held)
		taken := map[IssueID]bool{}
		for _, id := range held {
			taken[id] = true
		}
		for step := range 30 {
			p := parts[rng.IntN(len(parts))]
			if rng.IntN(5) == 0 {
				id := NewIssueID(p, rng.IntN(8))
				n.Hold(id)
				taken[id] = true
				continue
			}
			want := NewIssueID(p, 0)
			for ord := 1; taken[want]; ord++ {
				want = NewIssueID(p, ord)
			}
			taken[want] = true
			if got := n.Name(p); got != want {
				t.Fatalf("round %d step %d: %s, want %s", round, step, got, want)
			}
		}
	}
}

// TestIssueIDWriterFailing: a write that fails is said by Flush, however
// many ids came after it.
func TestIssueIDWriterFailing(t *testing.T) {
	w := NewIssueIDWriter(failingWriter{})
	for i := range 1000 { // past bufio's buffer
		w.Add(NewIssueID(IssueParts{}, i))
	}
	if err := w.Flush(); !errors.Is(err, errDiskFull) {
		t.Errorf("Flush = %v, want %v", err, errDiskFull)
	}
}

var errDiskFull = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errDiskFull }

// TestIssueNamerReset: a namer reset names rows as a new namer holding no
// ids does, whatever it held or named before.
func TestIssueNamerReset(t *testing.T) {
	p := IssueParts{Namespace: "ns", Organisation: "o", PageKey: "a.example/", Rule: "axe_core_audit\x00r", Width: 320, HTML: 1, Target: 2}
	q := p
	q.HTML = 3
	held := []IssueID{NewIssueID(p, 0), NewIssueID(q, 1)}
	n := NewIssueNamer(held)
	n.Hold(NewIssueID(q, 0))
	if got := n.Name(p); got != NewIssueID(p, 1) {
		t.Fatalf("before the reset: %s, want the ordinal 1 id", got)
	}
	n.Reset()
	fresh := NewIssueNamer(nil)
	for i, parts := range []IssueParts{p, q, p, q, p} {
		if got, want := n.Name(parts), fresh.Name(parts); got != want {
			t.Errorf("row %d after the reset: %s, want %s as a new namer names it", i, got, want)
		}
	}
}
