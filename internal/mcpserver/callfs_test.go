package mcpserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A read stops as soon as the call's context ends.
func TestCallFSStopsWithTheCall(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.csv"), []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer closeReadOnly(root)
	ctx, cancel := context.WithCancel(context.Background())
	fsys := callFS{ctx: ctx, root: root}
	f, err := fsys.Open("a.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer closeReadOnly(f)
	cancel()
	if _, err := f.Read(make([]byte, 8)); !errors.Is(err, context.Canceled) {
		t.Errorf("read after the call ended: %v, want context.Canceled", err)
	}
	if _, err := fsys.Open("a.csv"); !errors.Is(err, context.Canceled) {
		t.Errorf("open after the call ended: %v, want context.Canceled", err)
	}
}
