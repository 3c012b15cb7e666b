package runner

import (
	"os"
	"testing"
)

// must fails the test at once on an error from its set-up.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// openRootT opens dir as a root the test closes when it ends.
func openRootT(t *testing.T, dir string) *os.Root {
	t.Helper()
	root, err := os.OpenRoot(dir)
	must(t, err)
	t.Cleanup(func() { _ = root.Close() })
	return root
}
