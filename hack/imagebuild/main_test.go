package main

import (
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// readArchive opens an OCI image archive and returns its one image, the
// index annotations, and the image's files (path → mode).
func readArchive(t *testing.T, archive string) (v1.Image, map[string]string, map[string]int64) {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read only
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dir, hdr.Name)
		if hdr.Typeflag == tar.TypeDir {
			_ = os.MkdirAll(target, 0o755)
			continue
		}
		_ = os.MkdirAll(filepath.Dir(target), 0o755)
		data, _ := io.ReadAll(tr)
		if err := os.WriteFile(target, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lp, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := lp.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) != 1 {
		t.Fatalf("index: %v %v", m, err)
	}
	img, err := idx.Image(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]int64{}
	layers, _ := img.Layers()
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		lt := tar.NewReader(rc)
		for {
			hdr, err := lt.Next()
			if err != nil {
				break
			}
			files["/"+strings.TrimSuffix(hdr.Name, "/")] = hdr.Mode
		}
		if err := rc.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return img, m.Manifests[0].Annotations, files
}

func TestBuildArchive(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "tool")
	if err := os.WriteFile(bin, []byte("#!/bin/true\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(dir, "tree", "sub")
	_ = os.MkdirAll(tree, 0o755)
	_ = os.WriteFile(filepath.Join(tree, "data.txt"), []byte("x"), 0o644)
	out := filepath.Join(dir, "img.tar")
	sp := spec{
		out: out, tag: "example.test/team/tool:1.0", entrypoint: "/tool --flag", user: "1000:1000", workdir: "/work",
		files: []string{"/usr/bin/tool=" + bin}, dirs: []string{"/opt/tree=" + filepath.Join(dir, "tree")}, env: []string{"HOME=/tmp"},
	}
	if err := build(sp); err != nil {
		t.Fatal(err)
	}
	img, ann, files := readArchive(t, out)
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Config.User != "1000:1000" || cfg.Config.WorkingDir != "/work" || cfg.OS != "linux" || cfg.Architecture != runtime.GOARCH {
		t.Errorf("config = %+v", cfg.Config)
	}
	if diff := cmp.Diff([]string{"/tool", "--flag"}, cfg.Config.Entrypoint); diff != "" {
		t.Errorf("entrypoint (-want +got):\n%s", diff)
	}
	if ann["io.containerd.image.name"] != "example.test/team/tool:1.0" || ann["org.opencontainers.image.ref.name"] != "1.0" {
		t.Errorf("annotations = %v", ann)
	}
	for p, mode := range map[string]int64{"/usr/bin/tool": 0o755, "/opt/tree/sub/data.txt": 0o644, "/etc/passwd": 0o644, "/tmp": 0o1777} {
		if files[p] != mode {
			t.Errorf("%s mode %o, want %o (files: %v)", p, files[p], mode, files)
		}
	}
}
