package main

import (
	"archive/tar"
	"bytes"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// TestPushPlatforms: --push with two platforms pushes an index of two
// images, each holding its own architecture's files ({arch} in the host
// path) and saying its platform in its config, and prints the index's
// digest, then each platform's.
func TestPushPlatforms(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	dir := t.TempDir()
	for _, arch := range []string{"amd64", "arm64"} {
		if err := os.MkdirAll(filepath.Join(dir, arch), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, arch, "manager"), []byte("manager for "+arch), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sp := spec{push: host + "/cwac/cwac-operator:v1.2.0", platforms: []string{"linux/amd64", "linux/arm64"},
		entrypoint: "/manager", user: "65532:65532", workdir: "/", files: []string{"/manager=" + filepath.Join(dir, "{arch}", "manager")}}
	printed := captureStdout(t, func() error { return pushImages(sp) })

	ref, err := name.ParseReference(sp.push)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Index(ref)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) != 2 {
		t.Fatalf("index = %+v, %v; want two manifests", m, err)
	}
	idxDigest, _ := idx.Digest()
	want := []string{ref.Name() + " " + idxDigest.String()}
	for _, d := range m.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := img.ConfigFile()
		if d.Platform == nil || cfg.Architecture != d.Platform.Architecture || cfg.OS != "linux" {
			t.Errorf("manifest %s: platform %v, config %s/%s", d.Digest, d.Platform, cfg.OS, cfg.Architecture)
			continue
		}
		if got := fileIn(t, img, "/manager"); got != "manager for "+cfg.Architecture {
			t.Errorf("%s image's /manager = %q", cfg.Architecture, got)
		}
		want = append(want, d.Platform.String()+" "+d.Digest.String())
	}
	if got := strings.Split(strings.TrimSpace(printed), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("printed\n%s\nwant\n%s", printed, strings.Join(want, "\n"))
	}
}

// TestPushRefusesBeforeSending: a bad reference or platform is refused
// before anything is built or sent.
func TestPushRefusesBeforeSending(t *testing.T) {
	for _, tt := range []struct {
		sp   spec
		want string
	}{
		{spec{push: "Not A Reference"}, "--push"},
		{spec{push: "127.0.0.1:1/x:v1", platforms: []string{"arm64"}}, `--platform "arm64": want os/arch`},
		{spec{push: "127.0.0.1:1/x:v1", files: []string{"/m=/no/such/{arch}/file"}}, "no such file"},
	} {
		if err := pushImages(tt.sp); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err %v, want %q", tt.sp, err, tt.want)
		}
	}
}

// fileIn is the content of the file at p in img's layers ("" if none).
func fileIn(t *testing.T, img v1.Image, p string) string {
	t.Helper()
	var content bytes.Buffer
	eachEntry(t, img, func(at string, _ *tar.Header, r io.Reader) {
		if at == p {
			_, _ = io.Copy(&content, r)
		}
	})
	return content.String()
}

// captureStdout runs f with os.Stdout going to a pipe and returns what it
// printed.
func captureStdout(t *testing.T, f func() error) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() { b, _ := io.ReadAll(r); done <- string(b) }()
	ferr := f()
	os.Stdout = old
	_ = w.Close()
	out := <-done
	if ferr != nil {
		t.Fatal(ferr)
	}
	return out
}
