package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// verifiedHeader opens verified.txt: what the file is and who writes it.
const verifiedHeader = `# Packages that last passed make mutate, each with the fingerprint of what
# its verdict depended on (hack/mutation fingerprint: its files, its tests,
# the files of this module's packages its tests use, the Go version, the
# versions of the other modules they build with, the mutation scripts, its
# lines of equivalent.txt and the thresholds).
# make mutate writes a package's line when the package meets the targets;
# commit the file with the change. With MUTATE_CHANGED_ONLY=1 (CI), a
# package whose fingerprint still matches its line here is not run again.
#
#   <package directory> <sha-256 fingerprint>
`

// readVerified parses verified.txt into package → fingerprint; a missing
// file is an empty record.
func readVerified(name string) (map[string]string, error) {
	b, err := os.ReadFile(name)
	if os.IsNotExist(err) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Fields(l)
		if len(f) != 2 || len(f[1]) != 64 || strings.Trim(f[1], "0123456789abcdef") != "" {
			return nil, fmt.Errorf("%s:%d: want \"<package> <64 hex digits>\", got %q", name, i+1, l)
		}
		if _, dup := out[f[0]]; dup {
			return nil, fmt.Errorf("%s:%d: package %s listed twice", name, i+1, f[0])
		}
		out[f[0]] = f[1]
	}
	return out, nil
}

// recordVerified sets the given packages' fingerprints in verified.txt,
// keeps the other lines, and rewrites it sorted under the header (through
// a temporary file, so an interrupted run leaves the old file whole).
func recordVerified(name string, passed map[string]string) error {
	if len(passed) == 0 {
		return nil
	}
	all, err := readVerified(name)
	if err != nil {
		return err
	}
	for pkg, fp := range passed {
		all[pkg] = fp
	}
	pkgs := make([]string, 0, len(all))
	for pkg := range all {
		pkgs = append(pkgs, pkg)
	}
	sort.Strings(pkgs)
	var b strings.Builder
	b.WriteString(verifiedHeader)
	for _, pkg := range pkgs {
		fmt.Fprintf(&b, "%s %s\n", pkg, all[pkg])
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), ".verified-*.txt")
	if err != nil {
		return err
	}
	// After the rename there is nothing left to remove; before it, the
	// temporary file is not wanted.
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.WriteString(b.String()); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
