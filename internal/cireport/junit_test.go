package cireport

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/testutil/golden"
)

func TestJUnitGolden(t *testing.T) {
	data := junitOf(t, realFS(t), realOpts)
	golden.Assert(t, "real-scan-1.junit.xml", data)
	checkJUnit(t, data)
	s := parseJUnit(t, data)
	suite := s.Suites[0]
	// The real run: home page (color-contrast, image-alt), form page
	// (link-name, label ...), the clean page passing.
	cases := map[string]bool{}
	for _, c := range suite.Cases {
		cases[c.Classname+" "+c.Name] = c.Failure != nil
	}
	for name, failed := range map[string]bool{
		"http://127.0.0.1:8765/ color-contrast":                true,
		"http://127.0.0.1:8765/ image-alt":                     true,
		"http://127.0.0.1:8765/clean.html axe-core: no issues": false,
	} {
		got, ok := cases[name]
		if !ok || got != failed {
			t.Errorf("case %q: present %v, failed %v, want failed %v", name, ok, got, failed)
		}
	}
	props := map[string]string{}
	for _, p := range suite.Properties {
		props[p.Name] = p.Value
	}
	if props["cwac.scan"] != "real-scan-1" || props["cwac.threshold.maxTotalIssues"] != "10" || props["cwac.failAt"] != "serious" {
		t.Errorf("properties %v", props)
	}
}

func TestJUnitFailAt(t *testing.T) {
	// The real run's cases and their worst impacts decide the failures.
	counts := map[string]int{}
	for _, failAt := range []string{"critical", "serious", "moderate", "minor"} {
		s := parseJUnit(t, junitOf(t, realFS(t), Options{FailAt: failAt}))
		counts[failAt] = s.Suites[0].Failures
		n := 0
		for _, c := range s.Suites[0].Cases {
			if c.Failure != nil {
				n++
				if rank := impactRankOf(c.Failure.Type); rank > impactRankOf(failAt) {
					t.Errorf("fail at %s: case %s failed with %s", failAt, c.Name, c.Failure.Type)
				}
			}
		}
		if n != s.Suites[0].Failures || s.Failures != n {
			t.Errorf("fail at %s: %d failed cases, suite says %d, root %d", failAt, n, s.Suites[0].Failures, s.Failures)
		}
	}
	if counts["critical"] == 0 || counts["critical"] >= counts["serious"] || counts["serious"] > counts["moderate"] ||
		counts["moderate"] > counts["minor"] {
		t.Errorf("failures by fail-at %v: want more failures as the bar lowers", counts)
	}
}

func impactRankOf(impact string) int {
	return map[string]int{"critical": 0, "serious": 1, "moderate": 2, "minor": 3}[impact]
}

func TestJUnitCap(t *testing.T) {
	s := parseJUnit(t, junitOf(t, realFS(t), Options{MaxTestCases: 2}))
	if len(s.Suites[0].Cases) != 2 || s.Suites[0].Tests != 2 {
		t.Errorf("%d cases, want the cap of 2", len(s.Suites[0].Cases))
	}
	if !strings.Contains(s.Suites[0].SystemErr, "left out: a report holds at most 2 test cases") {
		t.Errorf("system-err %q", s.Suites[0].SystemErr)
	}
}

func TestJUnitBaselineProperty(t *testing.T) {
	base, cur := realFS(t), realFS(t)
	withDiff(t, base, cur)
	s := parseJUnit(t, junitOf(t, cur, Options{}))
	found := false
	for _, p := range s.Suites[0].Properties {
		found = found || p.Name == "cwac.baseline" && p.Value == "base-scan"
	}
	if !found {
		t.Errorf("no baseline property in %+v", s.Suites[0].Properties)
	}
}

func TestJUnitHostileText(t *testing.T) {
	m := realFS(t)
	header, rows := axeLines(t, m)
	bad := strings.Replace(rows[0], "<p class=\"\"faint\"\">", "<p>]]></failure><x a='\x01'>", 1)
	setAxe(m, header, []string{bad})
	data := junitOf(t, m, Options{})
	checkJUnit(t, data)
	if strings.Contains(string(data), "</failure><x") || strings.Contains(string(data), "\x01") {
		t.Errorf("the element's HTML broke out of its text:\n%s", data)
	}
}

func parseJUnit(t *testing.T, data []byte) junitSuites {
	t.Helper()
	var s junitSuites
	if err := xml.Unmarshal(data, &s); err != nil {
		t.Fatalf("JUnit is not XML: %v", err)
	}
	if len(s.Suites) != 1 {
		t.Fatalf("%d suites, want 1", len(s.Suites))
	}
	return s
}
