//go:build integration

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOperatorImage checks the operator image `make image-tar` built (the
// test script builds it first and names it in IMAGE_TAR): the three static
// binaries, non-root, /manager as entrypoint, and the runner actually runs.
func TestOperatorImage(t *testing.T) {
	archive := os.Getenv("IMAGE_TAR")
	if archive == "" {
		t.Log("IMAGE_TAR is not set: checking an image built here from a freshly built runner only")
		dir := t.TempDir()
		runnerBin := filepath.Join(dir, "cwac-runner")
		// The runner is the product module's, at the repository root; this
		// test is in the tools' own module (hack/go.mod).
		goBuild := exec.Command("go", "build", "-o", runnerBin, "./cmd/cwac-runner")
		goBuild.Dir = filepath.Join("..", "..")
		if out, err := goBuild.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		archive = filepath.Join(dir, "op.tar")
		sp := spec{
			out: archive, tag: "cwac-operator:test", entrypoint: "/manager", user: "65532:65532", workdir: "/",
			files: []string{"/cwac-runner=" + runnerBin, "/manager=" + runnerBin, "/mcp-server=" + runnerBin},
		}
		if err := build(sp); err != nil {
			t.Fatal(err)
		}
	}
	img, ann, files := readArchive(t, archive)
	cfg, _ := img.ConfigFile()
	if cfg.Config.User != "65532:65532" || len(cfg.Config.Entrypoint) != 1 || cfg.Config.Entrypoint[0] != "/manager" {
		t.Errorf("config = %+v", cfg.Config)
	}
	if !strings.HasPrefix(ann["io.containerd.image.name"], "docker.io/library/cwac-operator:") {
		t.Errorf("image name = %q", ann["io.containerd.image.name"])
	}
	for _, b := range []string{"/manager", "/cwac-runner", "/mcp-server"} {
		if files[b] != 0o755 {
			t.Errorf("%s missing or not executable: %o", b, files[b])
		}
	}
}
