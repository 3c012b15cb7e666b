package main

import (
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"reflect"
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
	for p, hdr := range layerHeaders(t, img) {
		files[p] = hdr.Mode
	}
	return img, m.Manifests[0].Annotations, files
}

// layerHeaders is the tar header of every entry of img's layers, by its
// path in the image.
func layerHeaders(t *testing.T, img v1.Image) map[string]*tar.Header {
	t.Helper()
	headers := map[string]*tar.Header{}
	eachEntry(t, img, func(p string, hdr *tar.Header, _ io.Reader) { headers[p] = hdr })
	return headers
}

// eachEntry calls f with every entry of img's layers: its path in the
// image, its header and its content.
func eachEntry(t *testing.T, img v1.Image, f func(p string, hdr *tar.Header, content io.Reader)) {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		lt := tar.NewReader(rc)
		for {
			hdr, err := lt.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			f("/"+strings.TrimSuffix(hdr.Name, "/"), hdr, lt)
		}
		if err := rc.Close(); err != nil {
			t.Fatal(err)
		}
	}
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

// TestBuildLayout: links, empty directories of their own owner and mode,
// VOLUME, CMD without an entrypoint and an env that replaces PATH, as the
// stand-in CWAC image (hack/cluster/standin-image.sh) is laid out like
// CWAC's own.
func TestBuildLayout(t *testing.T) {
	dir := t.TempDir()
	stub := filepath.Join(dir, "stub")
	if err := os.WriteFile(stub, []byte("stub\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "img.tar")
	sp := spec{
		out: out, tag: "cwac-standin:dev", user: "1000:1000", workdir: "/cwac", cmd: ".venv/bin/python -u cwac.py config_default.json",
		files:    []string{"/cwac/chrome/linux/chrome=" + stub},
		symlinks: []string{"/cwac/.venv/bin/python=/usr/bin/python3", "/cwac/.venv/bin/python3=python"},
		// The directory a file implies first, then given its own owner.
		mkdirs:  []string{"/cwac/results", "/cwac/nltk_data=1000:1000:0700", "/cwac/chrome=0:0:0750"},
		volumes: []string{"/cwac/results"},
		env:     []string{"VIRTUAL_ENV=.venv", "PATH=.venv/bin:/usr/bin:/bin", "HOME=/tmp", "HOME=/home/x"},
	}
	if err := build(sp); err != nil {
		t.Fatal(err)
	}
	img, _, _ := readArchive(t, out)
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	want := v1.Config{
		User: "1000:1000", WorkingDir: "/cwac",
		Cmd:     []string{".venv/bin/python", "-u", "cwac.py", "config_default.json"},
		Env:     []string{"PATH=.venv/bin:/usr/bin:/bin", "VIRTUAL_ENV=.venv", "HOME=/home/x"},
		Volumes: map[string]struct{}{"/cwac/results": {}},
	}
	if diff := cmp.Diff(want, cfg.Config); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	type node struct {
		typ      byte
		mode     int64
		uid, gid int
		link     string
	}
	got := map[string]node{}
	for p, h := range layerHeaders(t, img) {
		got[p] = node{h.Typeflag, h.Mode, h.Uid, h.Gid, h.Linkname}
	}
	for p, w := range map[string]node{
		"/cwac/.venv":               {tar.TypeDir, 0o755, 0, 0, ""},
		"/cwac/.venv/bin/python":    {tar.TypeSymlink, 0o777, 0, 0, "/usr/bin/python3"},
		"/cwac/.venv/bin/python3":   {tar.TypeSymlink, 0o777, 0, 0, "python"},
		"/cwac/chrome":              {tar.TypeDir, 0o750, 0, 0, ""},
		"/cwac/chrome/linux/chrome": {tar.TypeReg, 0o755, 0, 0, ""},
		"/cwac/nltk_data":           {tar.TypeDir, 0o700, 1000, 1000, ""},
		"/cwac/results":             {tar.TypeDir, 0o755, 0, 0, ""},
	} {
		if got[p] != w {
			t.Errorf("%s = %+v, want %+v", p, got[p], w)
		}
	}
}

// TestBuildRefusesBadLayout: each malformed flag is refused, naming it.
func TestBuildRefusesBadLayout(t *testing.T) {
	for _, tt := range []struct {
		name string
		sp   spec
		want string
	}{
		{"relative mkdir", spec{mkdirs: []string{"cwac/x"}}, `--mkdir "cwac/x": want /image/dir`},
		{"mkdir of /", spec{mkdirs: []string{"/"}}, `--mkdir "/": want /image/dir`},
		{"mkdir owner without mode", spec{mkdirs: []string{"/x=1000:1000"}}, "want uid:gid:mode after ="},
		{"mkdir uid", spec{mkdirs: []string{"/x=me:1000:0700"}}, `uid "me" is not a number`},
		{"mkdir negative uid", spec{mkdirs: []string{"/x=-1:1000:0700"}}, `uid "-1" is not a number of 0 or more`},
		{"mkdir gid", spec{mkdirs: []string{"/x=1000:-2:0700"}}, `gid "-2" is not a number of 0 or more`},
		{"mkdir mode not octal", spec{mkdirs: []string{"/x=0:0:0789"}}, `mode "0789" is not an octal mode`},
		{"mkdir mode too large", spec{mkdirs: []string{"/x=0:0:17777"}}, `mode "17777" is not an octal mode`},
		{"symlink without target", spec{symlinks: []string{"/x"}}, `--symlink "/x": want /image/path=target`},
		{"symlink with empty target", spec{symlinks: []string{"/x="}}, `--symlink "/x=": want /image/path=target`},
		{"relative symlink path", spec{symlinks: []string{"x=/y"}}, `--symlink "x=/y": want /image/path=target`},
		{"relative volume", spec{volumes: []string{"results"}}, `--volume "results": want an absolute path`},
		{"platform without arch", spec{platforms: []string{"linux"}}, `--platform "linux": want os/arch`},
		{"platform with a placeholder", spec{platforms: []string{"linux/{arch}"}}, `--platform "linux/{arch}": want os/arch`},
		{"platform twice", spec{platforms: []string{"linux/arm64", "linux/arm64"}}, `--platform "linux/arm64" given twice`},
		{"archive of two platforms", spec{platforms: []string{"linux/amd64", "linux/arm64"}}, "an archive holds one platform, not 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sp := tt.sp
			sp.out, sp.tag, sp.user = filepath.Join(t.TempDir(), "img.tar"), "x:1", "1000:1000"
			err := build(sp)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("build = %v, want an error with %q", err, tt.want)
			}
			if _, statErr := os.Stat(sp.out); statErr == nil {
				t.Error("an archive was written anyway")
			}
		})
	}
}

// TestMkdirAtItsLimits: the largest mode and owner 0 are accepted.
func TestMkdirAtItsLimits(t *testing.T) {
	for v, want := range map[string]entry{
		"/x":              {name: "/x", mode: 0o755, dir: true},
		"/x/":             {name: "/x", mode: 0o755, dir: true},
		"/x=0:0:7777":     {name: "/x", mode: 0o7777, dir: true},
		"/x=0:0:0":        {name: "/x", mode: 0, dir: true},
		"/x=65534:1:0700": {name: "/x", mode: 0o700, dir: true, uid: 65534, gid: 1},
	} {
		got, err := parseMkdir(v)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("parseMkdir(%q) = %+v, %v; want %+v", v, got, err, want)
		}
	}
}
