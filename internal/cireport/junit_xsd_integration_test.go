//go:build integration

package cireport

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// xmllintJUnit validates a JUnit report with xmllint against Jenkins'
// junit-10.xsd (testdata/SCHEMAS.md), the schema the restated rules of
// junit_schema_test.go follow, and returns xmllint's verdict.
func xmllintJUnit(t *testing.T, report []byte) error {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Fatal("xmllint is needed to validate JUnit reports against their schema (Debian: apt-get install libxml2-utils; hack/test.sh installs it)")
	}
	file := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(file, report, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xmllint, "--noout", "--nonet", "--schema", "testdata/junit-10.xsd", file).CombinedOutput()
	if err != nil {
		return &xmllintError{string(out)}
	}
	return nil
}

type xmllintError struct{ out string }

func (e *xmllintError) Error() string { return strings.TrimSpace(e.out) }

// The reports validate against the schema itself, not only the rules
// restated from it: the real scan's, with thresholds, version and a chosen
// impact, and one compared with a baseline; and the schema is awake: a
// report it must refuse is refused.
func TestJUnitValidatesAgainstTheXSD(t *testing.T) {
	base, cur := realFS(t), realFS(t)
	header, rows := axeLines(t, base)
	setAxe(base, header, rows[1:])
	withDiff(t, base, cur)
	for name, report := range map[string][]byte{
		"real scan":                junitOf(t, realFS(t), realOpts),
		"fail at minor":            junitOf(t, realFS(t), Options{Scan: "s", FailAt: "minor"}),
		"compared with a baseline": junitOf(t, cur, Options{Scan: "s", Baseline: "b", Thresholds: []scanpod.Threshold{{Name: "maxNewIssues", Value: "0"}}}),
	} {
		if err := xmllintJUnit(t, report); err != nil {
			t.Errorf("%s: the report fails junit-10.xsd: %v", name, err)
		}
	}
	golden, err := os.ReadFile("testdata/real-scan-1.junit.xml")
	if err != nil {
		t.Fatal(err)
	}
	if err := xmllintJUnit(t, golden); err != nil {
		t.Errorf("the golden report fails junit-10.xsd: %v", err)
	}
	// A test case without its required name, and an element the schema
	// does not know.
	for name, bad := range map[string]string{
		"no name":         strings.Replace(string(golden), "<testcase name=", "<testcase label=", 1),
		"unknown element": strings.Replace(string(golden), "<properties>", "<properties><extra/>", 1),
	} {
		if bad == string(golden) {
			t.Fatalf("%s: the edit did not apply", name)
		}
		if err := xmllintJUnit(t, []byte(bad)); err == nil {
			t.Errorf("%s: junit-10.xsd accepted it", name)
		}
	}
}
