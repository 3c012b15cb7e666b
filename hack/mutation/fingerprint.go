package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// judgeFiles are the files that decide whether a package passes, whatever
// the package: a change to them must re-run every package. go.mod and go.sum
// are not among them: a package's verdict depends on the Go version go.mod
// asks for and on the versions of the modules its tests build with (see
// moduleTestDeps), not on a module only another package uses, so adding a
// dependency elsewhere does not send every package back to mutation testing.
var judgeFiles = []string{"hack/mutate.sh"}

// judgeDir holds the program that computes the verdict (its .go files; not
// equivalent.txt, of which only each package's own lines count, nor
// verified.txt, which this fingerprint is written to).
const judgeDir = "hack/mutation"

// fingerprintInputs are the settings, besides files, a verdict depends on.
type fingerprintInputs struct {
	equivalentsFile          string
	minEfficacy, minCoverage float64
	// tool names the mutation tester's version (hack/mutate.sh passes the
	// binary's name, which hack/tools.sh suffixes with the version).
	tool string
	// tags are the build tags the tests are built with (hack/mutate.sh
	// passes "integration", as it gives go test and gremlins): files behind
	// a tag, and what only they import, count only when the tests see them.
	tags string
}

// fingerprint is a SHA-256, in hex, over everything a package's mutation
// verdict depends on: every file under the package's directory and, but for
// their own tests, under the directory of each package of this module its
// tests depend on (a changed dependency can change which mutants the tests
// kill), go.mod,
// the Go version and toolchain go.mod asks for, the path and version of
// every other module those tests build with, the mutation scripts, the package's lines of equivalent.txt, the
// thresholds and the build tags. root is the module's directory; pkg is
// relative to it.
func fingerprint(root, pkg string, in fingerprintInputs) (string, error) {
	pkg, err := cleanPackageDir(pkg)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(pkg))); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("package %s: no such directory under %s", pkg, root)
	}
	deps, modules, err := moduleTestDeps(root, pkg, in.tags)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	field(h, "package", pkg)
	field(h, "tool", in.tool)
	field(h, "min-efficacy", strconv.FormatFloat(in.minEfficacy, 'g', -1, 64))
	field(h, "min-coverage", strconv.FormatFloat(in.minCoverage, 'g', -1, 64))
	field(h, "tags", in.tags)
	lines, err := equivalentLines(in.equivalentsFile, pkg)
	if err != nil {
		return "", err
	}
	field(h, "equivalents", strings.Join(lines, "\n"))
	goLines, err := goDirectives(root)
	if err != nil {
		return "", err
	}
	field(h, "go", strings.Join(goLines, "\n"))
	field(h, "modules", strings.Join(modules, "\n"))
	for _, f := range judgeFiles {
		if err := hashFile(h, root, f); err != nil {
			return "", err
		}
	}
	// The program's own tests do not judge anything.
	judgeSource := func(name string) bool { return strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") }
	if err := hashTree(h, root, judgeDir, false, judgeSource); err != nil {
		return "", err
	}
	// A dependency's own tests are never built into this package's test
	// binary, so they cannot change which mutants it kills: editing them
	// (say, a fuzz test's oracle) must not send every package that imports
	// it back to mutation testing. A dependency's testdata does count: tests
	// read it (internal/report's read ../results/testdata).
	notTest := func(name string) bool { return !strings.HasSuffix(name, "_test.go") }
	for _, d := range deps {
		keep := notTest
		if d == pkg {
			keep = nil
		}
		// The module's root package would otherwise bring in the whole tree.
		if err := hashTree(h, root, d, d != ".", keep); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// cleanPackageDir accepts internal/gate, ./internal/gate and internal/gate/,
// and refuses a path that leaves the module.
func cleanPackageDir(pkg string) (string, error) {
	p := path.Clean(strings.TrimPrefix(filepath.ToSlash(pkg), "./"))
	if p == "" || p == "." || path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
		return "", fmt.Errorf("package %q: want a directory inside the module, such as internal/gate", pkg)
	}
	return p, nil
}

// moduleTestDeps lists, sorted, the directories (relative to root) of the
// package and of every package of the main module that its tests import,
// directly or not, when built with the build tags (comma-separated; "" for
// none), and the other modules those packages come from, each as
// path@version (with its replacement, if go.mod replaces it).
func moduleTestDeps(root, pkg, tags string) (dirs, modules []string, err error) {
	const format = "{{with .Module}}{{if .Main}}D {{$.Dir}}{{else}}M {{.Path}}@{{.Version}}" +
		"{{with .Replace}} => {{.Path}}@{{.Version}}{{end}}{{end}}{{end}}"
	cmd := exec.Command("go", "list", "-deps", "-test", "-tags", tags, "-f", format, "./"+pkg)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go list -deps -test -tags %q ./%s: %v: %s", tags, pkg, err, strings.TrimSpace(stderr.String()))
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, nil, err
	}
	absRoot, err = filepath.EvalSymlinks(absRoot)
	if err != nil {
		return nil, nil, err
	}
	seenDirs := map[string]bool{pkg: true}
	seenModules := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		kind, value, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		switch kind {
		case "M":
			seenModules[value] = true
		case "D":
			dir := value
			if d, err := filepath.EvalSymlinks(dir); err == nil {
				dir = d
			}
			rel, err := filepath.Rel(absRoot, dir)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return nil, nil, fmt.Errorf("go list: package directory %s is outside the module %s", dir, absRoot)
			}
			seenDirs[filepath.ToSlash(rel)] = true
		}
		// Anything else is a standard-library package or a test binary's
		// generated main: the Go version covers the former.
	}
	return sortedKeys(seenDirs), sortedKeys(seenModules), nil
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// goDirectives returns go.mod's go and toolchain lines: the Go version the
// module asks for decides how its tests build and run.
func goDirectives(root string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, fmt.Errorf("reading go.mod: %w", err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "go ") || strings.HasPrefix(l, "toolchain ") {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// equivalentLines returns, sorted, the entries of the equivalents list for
// files directly in pkg (an entry names its file first: internal/gate/x.go:12:...).
// A missing list has no entries.
func equivalentLines(name, pkg string) ([]string, error) {
	b, err := os.ReadFile(name)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		file, _, _ := strings.Cut(l, ":")
		if path.Dir(file) == pkg {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out, nil
}

// hashTree adds the files under dir (relative to root), in lexical order,
// each with its path; recursive descends into subdirectories; keep, when
// set, chooses files by name.
func hashTree(h io.Writer, root, dir string, recursive bool, keep func(name string) bool) error {
	base := filepath.Join(root, filepath.FromSlash(dir))
	return filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != base && !recursive {
				return filepath.SkipDir
			}
			return nil
		}
		if keep != nil && !keep(d.Name()) {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		return hashFile(h, root, filepath.ToSlash(rel))
	})
}

// hashFile adds one file's path and contents; a missing file counts as one
// (go.sum, for a module without dependencies).
func hashFile(h io.Writer, root, rel string) error {
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if os.IsNotExist(err) {
		field(h, "missing", rel)
		return nil
	}
	if err != nil {
		return err
	}
	field(h, "file", rel)
	field(h, "contents", string(b))
	return nil
}

// field writes a length-prefixed name and value, so no two different
// sequences of fields hash the same bytes.
// A hash's Write never fails.
func field(h io.Writer, name, value string) {
	_, _ = fmt.Fprintf(h, "%s %d\n%s\n", name, len(value), value)
}
