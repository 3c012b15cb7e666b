package cireport

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"testing"
)

// junitRules is the structure of the Ant/Jenkins junit-10.xsd this checks a
// report against (no XSD is shipped by a package the project reaches; see
// testdata/SCHEMAS.md): each element's allowed children in their order,
// its attributes with their type, and those required.
var junitRules = map[string]struct {
	children []string // in the order the schema's sequence allows
	attrs    map[string]string
	required []string
	text     bool
}{
	"testsuites": {children: []string{"testsuite"},
		attrs: map[string]string{"name": "string", "time": "decimal", "tests": "int", "failures": "int", "disabled": "int", "errors": "int"}},
	"testsuite": {children: []string{"properties", "testcase", "system-out", "system-err"},
		attrs: map[string]string{"name": "string", "tests": "int", "failures": "int", "errors": "int", "time": "decimal",
			"disabled": "int", "skipped": "int", "timestamp": "string", "hostname": "string", "id": "string",
			"package": "string", "file": "string", "log": "string", "url": "string", "version": "string"},
		required: []string{"name", "tests"}},
	"properties": {children: []string{"property"}},
	"property":   {attrs: map[string]string{"name": "string", "value": "string"}, required: []string{"name", "value"}},
	"testcase": {children: []string{"skipped", "error", "failure", "system-out", "system-err"},
		attrs:    map[string]string{"name": "string", "assertions": "string", "time": "decimal", "classname": "string", "status": "string"},
		required: []string{"name"}},
	"failure":    {attrs: map[string]string{"type": "string", "message": "string"}, text: true},
	"error":      {attrs: map[string]string{"type": "string", "message": "string"}, text: true},
	"skipped":    {attrs: map[string]string{"message": "string"}, text: true},
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
				i := slices.Index(junitRules[parent.name].children, name)
				if i < 0 || i < parent.pos {
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
	for _, doc := range []string{
		`<testsuite name="a" tests="1"/>`,
		`<testsuites><testsuite tests="1"/></testsuites>`,
		`<testsuites><testsuite name="a" tests="x"/></testsuites>`,
		`<testsuites><testsuite name="a" tests="1"><testcase name="c"/><properties/></testsuite></testsuites>`,
		`<testsuites><testsuite name="a" tests="1"><testcase name="c"><failure bad="1"/></testcase></testsuite></testsuites>`,
		`<testsuites><testsuite name="a" tests="1"><testcase name="c"><system-out/><failure/></testcase></testsuite></testsuites>`,
		`<testsuites><testsuite name="a" tests="1">text</testsuite></testsuites>`,
		`<testsuites><testsuite name="a" tests="1"><testcase/></testsuite></testsuites>`,
		`<testsuites>`,
	} {
		if err := junitStructure([]byte(doc)); err == nil {
			t.Errorf("accepted %s", doc)
		}
	}
	valid := `<testsuites><testsuite name="a" tests="1"><properties><property name="n" value="v"/></properties>` +
		`<testcase name="c" time="0"><failure message="m" type="t">x</failure></testcase></testsuite></testsuites>`
	if err := junitStructure([]byte(valid)); err != nil {
		t.Errorf("refused a valid report: %v", err)
	}
}
