package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeModule lays out a small module: a's tests use b, and its tests built
// with the integration tag use d too; c is unrelated. b uses the module
// example.com/x; the module requires example.com/y too, which no package of
// it uses (both replaced by local directories: the test runs offline).
func writeModule(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":            goMod("v1.0.0", "v1.0.0"),
		"x/go.mod":          "module example.com/x\n\ngo 1.22\n",
		"x/x.go":            "package x\n\nfunc X() int { return 1 }\n",
		"y/go.mod":          "module example.com/y\n\ngo 1.22\n",
		"y/y.go":            "package y\n",
		"a/a.go":            "package a\n\nimport \"example.com/m/b\"\n\nfunc A() int { return b.B() }\n",
		"a/a_test.go":       "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) { _ = A() }\n",
		"a/testdata/in.txt": "input\n",
		"a/a_integration_test.go": "//go:build integration\n\npackage a\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/d\"\n)\n\n" +
			"func TestD(t *testing.T) { _ = d.D() }\n",
		"b/b.go":                       "package b\n\nimport \"example.com/x\"\n\nfunc B() int { return x.X() }\n",
		"d/d.go":                       "package d\n\nfunc D() int { return 1 }\n",
		"c/c.go":                       "package c\n",
		"hack/mutate.sh":               "#!/bin/sh\n",
		"hack/mutation/main.go":        "package main\n",
		"hack/mutation/main_test.go":   "package main\n",
		"hack/mutation/equivalent.txt": "# comment\na/a.go:5:ARITHMETIC_BASE \"x\" why\nc/c.go:1:ARITHMETIC_BASE \"y\" why\n",
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// goMod is the test module's go.mod with the versions of example.com/x and
// example.com/y it requires.
func goMod(x, y string) string {
	return "module example.com/m\n\ngo 1.22\n\nrequire (\n\texample.com/x " + x + "\n\texample.com/y " + y + "\n)\n\n" +
		"replace example.com/x => ./x\n\nreplace example.com/y => ./y\n"
}

func TestFingerprintChangesWithWhatTheVerdictDependsOn(t *testing.T) {
	base := func(root string) fingerprintInputs {
		return fingerprintInputs{equivalentsFile: filepath.Join(root, "hack/mutation/equivalent.txt"), minEfficacy: 90, minCoverage: 90, tool: "gremlins-v0.6.0",
			tags: "integration"}
	}
	write := func(name, body string) func(t *testing.T, root string, in *fingerprintInputs) {
		return func(t *testing.T, root string, _ *fingerprintInputs) {
			p := filepath.Join(root, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	const eqFile = "hack/mutation/equivalent.txt"
	tests := []struct {
		name    string
		change  func(t *testing.T, root string, in *fingerprintInputs)
		changes bool
	}{
		{"nothing", func(*testing.T, string, *fingerprintInputs) {}, false},
		{"the package's code", write("a/a.go", "package a\n\nimport \"example.com/m/b\"\n\nfunc A() int { return b.B() + 1 }\n"), true},
		{"the package's test", write("a/a_test.go", "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) { _ = A() + 1 }\n"), true},
		{"a new test file", write("a/more_test.go", "package a\n"), true},
		{"the package's testdata", write("a/testdata/in.txt", "other input\n"), true},
		{"a dependency of the package", write("b/b.go", "package b\n\nfunc B() int { return 2 }\n"), true},
		{"a dependency's testdata", write("b/testdata/in.txt", "input a test may read\n"), true},
		{"a dependency's own test", write("b/b_test.go", "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) {}\n"), false},
		{"the Go version go.mod asks for", write("go.mod", strings.Replace(goMod("v1.0.0", "v1.0.0"), "go 1.22", "go 1.23", 1)), true},
		{"the toolchain go.mod asks for", write("go.mod", goMod("v1.0.0", "v1.0.0")+"\ntoolchain go1.22.1\n"), true},
		{"the version of a module the tests build with", write("go.mod", goMod("v1.1.0", "v1.0.0")), true},
		{"the version of a module the tests do not use", write("go.mod", goMod("v1.0.0", "v1.1.0")), false},
		{"go.sum", write("go.sum", "example.com/z v1.0.0 h1:x=\n"), false},
		{"the mutation script", write("hack/mutate.sh", "#!/bin/sh\nexit 0\n"), true},
		{"the verdict's program", write("hack/mutation/main.go", "package main\n\nfunc main() {}\n"), true},
		{"the verdict program's tests", write("hack/mutation/main_test.go", "package main\n\nfunc helper() {}\n"), false},
		{"the package's equivalent mutants", write(eqFile,
			"a/a.go:5:ARITHMETIC_BASE \"x\" another reason\nc/c.go:1:ARITHMETIC_BASE \"y\" why\n"), true},
		{"the efficacy target", func(_ *testing.T, _ string, in *fingerprintInputs) { in.minEfficacy = 91 }, true},
		{"the coverage target", func(_ *testing.T, _ string, in *fingerprintInputs) { in.minCoverage = 80 }, true},
		{"the mutation tester's version", func(_ *testing.T, _ string, in *fingerprintInputs) { in.tool = "gremlins-v0.7.0" }, true},
		{"a dependency only the tagged tests use", write("d/d.go", "package d\n\nfunc D() int { return 2 }\n"), true},
		{"the build tags", func(_ *testing.T, _ string, in *fingerprintInputs) { in.tags = "" }, true},
		{"an unrelated package", write("c/c.go", "package c\n\nfunc C() {}\n"), false},
		{"another package's equivalent mutants", write(eqFile,
			"# comment\na/a.go:5:ARITHMETIC_BASE \"x\" why\nc/c.go:1:ARITHMETIC_BASE \"y\" changed\n"), false},
		{"the equivalents' comments and order", write(eqFile,
			"c/c.go:1:ARITHMETIC_BASE \"y\" why\n\na/a.go:5:ARITHMETIC_BASE \"x\" why\n"), false},
		{"verified.txt", write("hack/mutation/verified.txt", "a 0000\n"), false},
		{"a file outside any package", write("docs/notes.md", "text\n"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := writeModule(t)
			in := base(root)
			before, err := fingerprint(root, "a", in)
			if err != nil {
				t.Fatal(err)
			}
			if len(before) != 64 {
				t.Fatalf("fingerprint %q is not 64 hex digits", before)
			}
			tt.change(t, root, &in)
			after, err := fingerprint(root, "./a/", in)
			if err != nil {
				t.Fatal(err)
			}
			if changed := after != before; changed != tt.changes {
				t.Errorf("changing %s: fingerprint changed = %v, want %v", tt.name, changed, tt.changes)
			}
		})
	}
}

// TestFingerprintWithoutTags: without the tag, a dependency only the tagged
// tests use is not part of what the tests depend on.
func TestFingerprintWithoutTags(t *testing.T) {
	root := writeModule(t)
	in := fingerprintInputs{equivalentsFile: filepath.Join(root, "hack/mutation/equivalent.txt")}
	before, err := fingerprint(root, "a", in)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "d", "d.go"), []byte("package d\n\nfunc D() int { return 2 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if after, err := fingerprint(root, "a", in); err != nil || after != before {
		t.Errorf("fingerprint without tags changed with a package only tagged tests use: %v", err)
	}
}

func TestFingerprintRefusesBadPackages(t *testing.T) {
	root := writeModule(t)
	in := fingerprintInputs{equivalentsFile: filepath.Join(root, "none.txt")}
	for _, pkg := range []string{"", ".", "../a", "/a", "missing"} {
		if _, err := fingerprint(root, pkg, in); err == nil || !strings.Contains(err.Error(), "package") {
			t.Errorf("fingerprint(%q) error = %v, want one naming the package", pkg, err)
		}
	}
}
