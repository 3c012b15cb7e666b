// Package tiers holds the check that keeps the integration tier
// recognisable: a test file that needs a server (the integration build tag)
// says so in its name, or lives in a folder that is all integration
// (test/…).
package tiers

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIntegrationFilesSaySoInTheirName(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	var wrong []string
	tagged := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch rel {
			case "bin", ".git", "test", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") || !buildsWithIntegration(t, path) {
			return nil
		}
		tagged++
		if !strings.HasSuffix(path, "_integration_test.go") {
			wrong = append(wrong, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if tagged < 50 {
		t.Fatalf("found %d integration test files: is the walk looking at the project?", tagged)
	}
	for _, w := range wrong {
		t.Errorf("%s has the integration build tag: name it *_integration_test.go (or move it under test/)", w)
	}
}

// buildsWithIntegration reports whether a Go file's build constraint is
// the integration tag (the first //go:build line, before the package clause).
func buildsWithIntegration(t *testing.T, path string) bool {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "package ") {
			return false
		}
		if c, ok := strings.CutPrefix(line, "//go:build "); ok {
			return strings.Contains(c, "integration") && !strings.Contains(c, "!integration")
		}
	}
	return false
}
