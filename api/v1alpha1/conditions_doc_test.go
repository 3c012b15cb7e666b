package v1alpha1

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// The condition and reason tables in docs/ are written by hand (the API
// reference generator does not render untyped constants): every condition
// type and reason declared here must appear in them, so they cannot drift.
func TestEveryConditionAndReasonIsDocumented(t *testing.T) {
	var docs strings.Builder
	for _, name := range []string{"../../docs/scans.md", "../../docs/schedules.md", "../../docs/decisions.md", "../../docs/digests.md"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(data)
	}
	file, err := parser.ParseFile(token.NewFileSet(), "conditions.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			for _, v := range spec.(*ast.ValueSpec).Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				value := strings.Trim(lit.Value, `"`)
				checked++
				if !strings.Contains(docs.String(), "`"+value+"`") {
					t.Errorf("%s is declared in conditions.go but not documented in docs/scans.md or docs/schedules.md", value)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d constants found in conditions.go: the test reads the wrong file", checked)
	}
}
