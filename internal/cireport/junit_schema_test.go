package cireport

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// junitRules is the structure of Jenkins' junit-10.xsd (the xUnit plugin's
// newest JUnit schema, the common Ant/Surefire form), restated here so the
// fast tier checks it without xmllint (the integration tier validates
// against testdata/junit-10.xsd itself; testdata/SCHEMAS.md): each
// element's allowed children, whether in order (a sequence) or any order (a
// choice), its attributes with their type, and those required. Counts are
// checked as integers, which the schema leaves as strings and CI tools read
// as numbers.
var junitRules = map[string]struct {
	children []string
	anyOrder bool
	attrs    map[string]string
	required []string
	text     bool
}{
	"testsuites": {children: []string{"testsuite"},
		attrs: map[string]string{"name": "string", "time": "decimal", "tests": "int", "failures": "int", "errors": "int"}},
	"testsuite": {children: []string{"testsuite", "properties", "testcase", "system-out", "system-err"}, anyOrder: true,
		attrs: map[string]string{"name": "string", "tests": "int", "failures": "int", "errors": "int", "group": "string", "time": "decimal",
			"skipped": "int", "timestamp": "string", "hostname": "string", "id": "string", "package": "string", "file": "string",
			"log": "string", "url": "string"},
		required: []string{"name", "tests", "failures", "errors"}},
	"properties": {children: []string{"property"}},
	"property":   {attrs: map[string]string{"name": "string", "value": "string"}, required: []string{"name", "value"}},
	"testcase": {children: []string{"skipped", "error", "failure", "system-out", "system-err"}, anyOrder: true,
		attrs:    map[string]string{"name": "string", "time": "decimal", "classname": "string", "group": "string"},
		required: []string{"name"}},
	"failure":    {attrs: map[string]string{"type": "string", "message": "string"}, text: true},
	"error":      {attrs: map[string]string{"type": "string", "message": "string"}, text: true},
	"skipped":    {attrs: map[string]string{"type": "string", "message": "string"}, text: true},
	"system-out": {text: true},
	"system-err": {text: true},
}

// checkJUnit fails t unless data is well-formed XML whose root is
// testsuites and whose every element, attribute and order the rules allow.
func checkJUnit(t *testing.T, data []byte) {
	t.Helper()
	if err := junitStructure(data); err != nil {
		t.Errorf("JUnit does not follow junit-10.xsd: %v\n%s", err, data)
	}
}

func junitStructure(data []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	type open struct {
		name string
		pos  int // index in children of the last child seen
	}
	var stack []open
	roots := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			name := tk.Name.Local
			rule, ok := junitRules[name]
			if !ok {
				return fmt.Errorf("unknown element <%s>", name)
			}
			if len(stack) == 0 {
				roots++
				if name != "testsuites" || roots > 1 {
					return fmt.Errorf("root <%s>, want one <testsuites>", name)
				}
			} else {
				parent := &stack[len(stack)-1]
				prule := junitRules[parent.name]
				i := slices.Index(prule.children, name)
				if i < 0 || !prule.anyOrder && i < parent.pos {
					return fmt.Errorf("<%s> inside <%s>, or out of order", name, parent.name)
				}
				parent.pos = i
			}
			seen := map[string]bool{}
			for _, a := range tk.Attr {
				typ, ok := rule.attrs[a.Name.Local]
				if !ok {
					return fmt.Errorf("<%s> has no attribute %s", name, a.Name.Local)
				}
				seen[a.Name.Local] = true
				if err := checkType(typ, a.Value); err != nil {
					return fmt.Errorf("<%s %s>: %w", name, a.Name.Local, err)
				}
			}
			for _, r := range rule.required {
				if !seen[r] {
					return fmt.Errorf("<%s> lacks %s", name, r)
				}
			}
			stack = append(stack, open{name: name})
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 && !junitRules[stack[len(stack)-1].name].text && len(bytes.TrimSpace(tk)) > 0 {
				return fmt.Errorf("text inside <%s>", stack[len(stack)-1].name)
			}
		}
	}
	if roots != 1 {
		return errors.New("no root element")
	}
	return nil
}

func checkType(typ, v string) error {
	switch typ {
	case "int":
		_, err := strconv.Atoi(v)
		return err
	case "decimal":
		_, err := strconv.ParseFloat(v, 64)
		return err
	}
	return nil
}

// TestJUnitStructureRefuses shows the check is awake.
func TestJUnitStructureRefuses(t *testing.T) {
	const suite = `<testsuite name="a" tests="1" failures="0" errors="0">`
	for doc, want := range map[string]string{
		`<testsuite name="a" tests="1"/>`:                                                                      "root <testsuite>",
		`<testsuites><testsuite tests="1" failures="0" errors="0"/></testsuites>`:                              "lacks name",
		`<testsuites><testsuite name="a" tests="x" failures="0" errors="0"/></testsuites>`:                     "<testsuite tests>",
		`<testsuites><testsuite name="a" tests="1" failures="0"><testcase name="c"/></testsuite></testsuites>`: "lacks errors",
		`<testsuites>` + suite + `<testcase name="c" status="x"/></testsuite></testsuites>`:                    "no attribute status",
		`<testsuites>` + suite + `<properties><testcase name="c"/></properties></testsuite></testsuites>`:      "<testcase> inside <properties>",
		`<testsuites>` + suite + `<testcase name="c"><failure bad="1"/></testcase></testsuite></testsuites>`:   "no attribute bad",
		`<testsuites>` + suite + `text</testsuite></testsuites>`:                                               "text inside <testsuite>",
		`<testsuites>` + suite + `<testcase/></testsuite></testsuites>`:                                        "<testcase> lacks name",
		`<testsuites><property name="n" value="v"/></testsuites>`:                                              "<property> inside <testsuites>",
		`<testsuites>`: "EOF",
	} {
		if err := junitStructure([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", doc, err, want)
		}
	}
	valid := `<testsuites><testsuite name="a" tests="1" failures="1" errors="0"><properties><property name="n" value="v"/></properties>` +
		`<testcase name="c" time="0"><failure message="m" type="t">x</failure></testcase></testsuite></testsuites>`
	if err := junitStructure([]byte(valid)); err != nil {
		t.Errorf("refused a valid report: %v", err)
	}
}
