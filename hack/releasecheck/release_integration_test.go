//go:build integration && release

// Package releasecheck checks make release end to end against an OCI
// registry started here (CNCF distribution, on a free loopback port): a
// clone of this checkout, tagged, is released with a cosign key pair made for
// the test; then the signatures and attestations are verified with the
// public key (and refused with another), the SBOMs' Go modules are compared
// with `go version -m` of the released binaries, and the pushed chart is
// pulled and rendered to check it names the pushed image by digest.
// hack/test.sh runs it in its own tier (build tags integration and release).
package releasecheck

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

const (
	tag           = "v0.1.0-check.1"
	chartVersion  = "0.1.0-check.1"
	keyPassword   = "release-check"
	otherPassword = "another-key"
)

var root = filepath.Join("..", "..")

func TestReleaseToALocalRegistry(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	root, _ = filepath.Abs(root)
	tmp := t.TempDir()
	registryAddr := startRegistry(ctx, t, tmp)
	registry := registryAddr + "/cwac"
	cosign := tool(t, "cosign")

	// A key pair for the release, and another that must not verify it.
	for _, k := range []struct{ dir, password string }{{"key", keyPassword}, {"other", otherPassword}} {
		dir := filepath.Join(tmp, k.dir)
		must(t, os.MkdirAll(dir, 0o700))
		runIn(ctx, t, dir, []string{"COSIGN_PASSWORD=" + k.password}, cosign, "generate-key-pair")
	}
	key, pub, otherPub := filepath.Join(tmp, "key", "cosign.key"), filepath.Join(tmp, "key", "cosign.pub"), filepath.Join(tmp, "other", "cosign.pub")

	// A clone of this checkout's HEAD, tagged, sharing this checkout's tools
	// (they take minutes to build).
	repo := filepath.Join(tmp, "repo")
	runIn(ctx, t, tmp, nil, "git", "clone", "-q", root, repo)
	must(t, os.MkdirAll(filepath.Join(repo, "bin"), 0o755))
	for _, program := range []string{"cosign", "syft", "helm"} {
		built, err := filepath.EvalSymlinks(tool(t, program))
		must(t, err)
		must(t, os.Symlink(built, filepath.Join(repo, "bin", filepath.Base(built))))
	}
	release := func(env ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "make", "--no-print-directory", "release")
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	env := []string{"REGISTRY=" + registry, "COSIGN_KEY=" + key, "COSIGN_PASSWORD=" + keyPassword}

	checkRefusals(ctx, t, repo, registry, key, release, env)

	out, err := release(env...)
	if err != nil {
		t.Fatalf("make release: %v\n%s", err, out)
	}
	outDir := filepath.Join(repo, "bin", "release", tag)
	published := readEnv(t, filepath.Join(outDir, "release.env"))
	commit := strings.TrimSpace(runIn(ctx, t, repo, nil, "git", "rev-parse", "HEAD"))
	if published["VERSION"] != tag || published["COMMIT"] != commit {
		t.Errorf("release.env = %v", published)
	}
	image, chart := published["IMAGE"], published["CHART"]
	platformImages := map[string]string{"amd64": published["IMAGE_linux_amd64"], "arm64": published["IMAGE_linux_arm64"]}

	t.Run("image index", func(t *testing.T) { checkIndex(t, image, platformImages) })

	t.Run("signatures", func(t *testing.T) {
		for _, ref := range []string{image, platformImages["amd64"], platformImages["arm64"], chart} {
			verify := []string{"verify", "--insecure-ignore-tlog=true", "--allow-http-registry", ref}
			runIn(ctx, t, tmp, nil, cosign, append([]string{"--key", pub}, verify...)...)
			cmd := exec.CommandContext(ctx, cosign, append([]string{"--key", otherPub}, verify...)...)
			if out, err := cmd.CombinedOutput(); err == nil {
				t.Errorf("%s verified with another key:\n%s", ref, out)
			}
		}
	})

	t.Run("provenance", func(t *testing.T) {
		for _, ref := range []string{image, chart} {
			st := attestation(ctx, t, cosign, pub, "slsaprovenance1", ref)
			if st.PredicateType != "https://slsa.dev/provenance/v1" || len(st.Subject) != 1 || "sha256:"+st.Subject[0].Digest["sha256"] != digestOf(ref) {
				t.Errorf("%s: statement %s for %v", ref, st.PredicateType, st.Subject)
			}
			var p struct {
				BuildDefinition struct {
					ExternalParameters struct {
						Ref       string   `json:"ref"`
						Platforms []string `json:"platforms"`
					} `json:"externalParameters"`
					ResolvedDependencies []struct {
						Digest map[string]string `json:"digest"`
					} `json:"resolvedDependencies"`
				} `json:"buildDefinition"`
			}
			must(t, json.Unmarshal(st.Predicate, &p))
			bd := p.BuildDefinition
			if bd.ExternalParameters.Ref != "refs/tags/"+tag || len(bd.ResolvedDependencies) != 1 || bd.ResolvedDependencies[0].Digest["gitCommit"] != commit ||
				!slices.Equal(bd.ExternalParameters.Platforms, []string{"linux/amd64", "linux/arm64"}) {
				t.Errorf("%s: provenance %s", ref, st.Predicate)
			}
		}
	})

	t.Run("SBOM", func(t *testing.T) {
		for arch, ref := range platformImages {
			st := attestation(ctx, t, cosign, pub, "spdxjson", ref)
			if st.PredicateType != "https://spdx.dev/Document" {
				t.Errorf("%s: predicate type %s", arch, st.PredicateType)
			}
			inSBOM := sbomModules(t, st.Predicate)
			checkMachine(t, filepath.Join(outDir, arch), arch)
			inBinaries := binaryModules(ctx, t, filepath.Join(outDir, arch), commit)
			if missing, extra := setDiff(inBinaries, inSBOM), setDiff(inSBOM, inBinaries); len(missing)+len(extra) > 0 || len(inBinaries) < 50 {
				t.Errorf("%s: the SBOM's Go modules differ from go version -m of the binaries (%d modules):\nnot in the SBOM: %v\nonly in the SBOM: %v",
					arch, len(inBinaries), missing, extra)
			}
		}
	})

	t.Run("chart", func(t *testing.T) {
		helm := tool(t, "helm")
		dir := t.TempDir()
		runIn(ctx, t, dir, nil, helm, "pull", published["CHART_REF"], "--version", chartVersion, "--plain-http", "--destination", dir)
		tgz := filepath.Join(dir, "cwac-operator-"+chartVersion+".tgz")
		rendered := runIn(ctx, t, dir, nil, helm, "template", "cwac", tgz, "--kube-version", "1.37.1")
		want := fmt.Sprintf("image: %q", registry+"/cwac-operator:"+tag+"@"+digestOf(image))
		if n := strings.Count(rendered, want); n != 2 {
			t.Errorf("the pulled chart names %s %d times, want 2 (the operator and the MCP server)", want, n)
		}
		meta := runIn(ctx, t, dir, nil, helm, "show", "chart", tgz)
		for _, line := range []string{"version: " + chartVersion, "appVersion: " + chartVersion} {
			if !slices.Contains(strings.Split(meta, "\n"), line) {
				t.Errorf("the pulled chart's Chart.yaml lacks %q:\n%s", line, meta)
			}
		}
	})
}

// checkRefusals: make release refuses, before anything is built or pushed
// and saying why, each input it cannot release from; it leaves repo tagged
// and clean.
func checkRefusals(ctx context.Context, t *testing.T, repo, registry, key string, release func(...string) (string, error), env []string) {
	t.Helper()
	for _, tt := range []struct {
		env  []string
		want string
	}{
		{env, "HEAD has no v* tag"},
		{[]string{"COSIGN_KEY=" + key}, "REGISTRY is required"},
		{[]string{"REGISTRY=Registry.Example/Owner", "COSIGN_KEY=" + key}, "want host[:port][/path] in lower case"},
	} {
		out, err := release(tt.env...)
		if err == nil || !strings.Contains(out, tt.want) {
			t.Errorf("make release with %v: err %v, want %q in\n%s", tt.env, err, tt.want, out)
		}
	}
	// An annotated tag, as a release's; the tagger given here, since a CI
	// machine may have no git identity.
	runIn(ctx, t, repo, []string{"GIT_COMMITTER_NAME=release check", "GIT_COMMITTER_EMAIL=release-check@localhost"},
		"git", "tag", "-a", "-m", "release check", tag)
	for _, tt := range []struct {
		env  []string
		want string
	}{
		{[]string{"REGISTRY=" + registry}, "COSIGN_KEY (a cosign key pair's private key) or COSIGN_KEYLESS=1"},
		{append(slices.Clone(env), "VERSION=v9.9.9"), "VERSION v9.9.9 is not HEAD's tag " + tag},
	} {
		out, err := release(tt.env...)
		if err == nil || !strings.Contains(out, tt.want) {
			t.Errorf("make release with %v: err %v, want %q in\n%s", tt.env, err, tt.want, out)
		}
	}
	must(t, os.WriteFile(filepath.Join(repo, "README.md"), []byte("changed\n"), 0o644))
	if out, err := release(env...); err == nil || !strings.Contains(out, "the working tree has changes") {
		t.Errorf("make release from a changed tree: err %v\n%s", err, out)
	}
	runIn(ctx, t, repo, nil, "git", "checkout", "-q", "README.md")
	if t.Failed() {
		t.FailNow()
	}

}

// startRegistry runs the distribution registry on a free loopback port
// until the test ends and returns its address once it answers.
func startRegistry(ctx context.Context, t *testing.T, tmp string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	addr := l.Addr().String()
	must(t, l.Close())
	cfg := filepath.Join(tmp, "registry.yml")
	must(t, os.WriteFile(cfg, []byte(fmt.Sprintf(
		"version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: %s\nhttp:\n  addr: %s\n",
		filepath.Join(tmp, "registry"), addr)), 0o644))
	cmd := exec.CommandContext(ctx, tool(t, "registry"), "serve", cfg)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	must(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/v2/")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the registry did not answer on %s: %v\n%s", addr, err, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkIndex: the image is an index of the two platforms' images, each of
// its own architecture.
func checkIndex(t *testing.T, image string, platformImages map[string]string) {
	ref, err := name.ParseReference(image)
	must(t, err)
	idx, err := remote.Index(ref)
	must(t, err)
	m, err := idx.IndexManifest()
	must(t, err)
	got := map[string]string{}
	for _, d := range m.Manifests {
		img, err := idx.Image(d.Digest)
		must(t, err)
		cfg, err := img.ConfigFile()
		must(t, err)
		if cfg.OS != "linux" || d.Platform == nil || d.Platform.Architecture != cfg.Architecture {
			t.Errorf("manifest %s: platform %v, config %s/%s", d.Digest, d.Platform, cfg.OS, cfg.Architecture)
		}
		if cfg.Config.User != "65532:65532" || !slices.Equal(cfg.Config.Entrypoint, []string{"/manager"}) {
			t.Errorf("%s: user %q, entrypoint %v", cfg.Architecture, cfg.Config.User, cfg.Config.Entrypoint)
		}
		got[cfg.Architecture] = d.Digest.String()
	}
	for arch, ref := range platformImages {
		if got[arch] == "" || got[arch] != digestOf(ref) {
			t.Errorf("%s: index holds %q, release.env says %s", arch, got[arch], ref)
		}
	}
	if len(got) != 2 {
		t.Errorf("index of %v, want amd64 and arm64", got)
	}
}

type statement struct {
	PredicateType string `json:"predicateType"`
	Subject       []struct {
		Digest map[string]string `json:"digest"`
	} `json:"subject"`
	Predicate json.RawMessage `json:"predicate"`
}

// attestation is the one in-toto statement of the type cosign verifies on
// ref with the key.
func attestation(ctx context.Context, t *testing.T, cosign, pub, typ, ref string) statement {
	t.Helper()
	out := runIn(ctx, t, "", nil, cosign, "verify-attestation", "--key", pub, "--type", typ,
		"--insecure-ignore-tlog=true", "--allow-http-registry", ref)
	var sts []statement
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var env struct {
			Payload string `json:"payload"`
		}
		if json.Unmarshal([]byte(line), &env) != nil || env.Payload == "" {
			continue
		}
		data, err := base64.StdEncoding.DecodeString(env.Payload)
		must(t, err)
		var st statement
		must(t, json.Unmarshal(data, &st))
		sts = append(sts, st)
	}
	if len(sts) != 1 {
		t.Fatalf("%s: %d %s attestations verified, want 1:\n%s", ref, len(sts), typ, out)
	}
	return sts[0]
}

// sbomModules is every Go module an SPDX document names, as path@version
// (syft's purls, pkg:golang/<path>@<version>; the standard library's is
// left out: go version -m says it as the Go version).
func sbomModules(t *testing.T, doc json.RawMessage) map[string]bool {
	t.Helper()
	var d struct {
		Packages []struct {
			ExternalRefs []struct {
				Type    string `json:"referenceType"`
				Locator string `json:"referenceLocator"`
			} `json:"externalRefs"`
		} `json:"packages"`
	}
	must(t, json.Unmarshal(doc, &d))
	out := map[string]bool{}
	for _, p := range d.Packages {
		for _, r := range p.ExternalRefs {
			purl, ok := strings.CutPrefix(r.Locator, "pkg:golang/")
			if r.Type != "purl" || !ok {
				continue
			}
			purl, _, _ = strings.Cut(purl, "?")
			if strings.HasPrefix(purl, "stdlib@") {
				continue
			}
			// A purl percent-encodes what a module path or version may
			// hold (the + of +incompatible).
			module, err := url.PathUnescape(purl)
			if err != nil {
				t.Fatalf("SBOM purl %q: %v", r.Locator, err)
			}
			out[module] = true
		}
	}
	return out
}

// binaryModules is every module `go version -m` lists for the binaries in
// dir (main module and dependencies, replacements as what was built), as
// path@version; it also checks each binary says the released commit.
func binaryModules(ctx context.Context, t *testing.T, dir, commit string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	entries, err := os.ReadDir(dir)
	must(t, err)
	for _, e := range entries {
		info := runIn(ctx, t, "", nil, "go", "version", "-m", filepath.Join(dir, e.Name()))
		if !strings.Contains(info, "\tvcs.revision="+commit+"\n") || !strings.Contains(info, "\tvcs.modified=false\n") ||
			!strings.Contains(info, "\tmod\tgithub.com/a11y-dev/cwac-operator\t"+tag+"\t") {
			t.Errorf("%s does not say it is %s, built from %s unchanged:\n%s", e.Name(), tag, commit, info)
		}
		var last string
		for _, line := range strings.Split(info, "\n") {
			f := strings.Split(strings.TrimSpace(line), "\t")
			switch {
			case len(f) >= 3 && (f[0] == "mod" || f[0] == "dep"):
				last = f[1] + "@" + f[2]
				out[last] = true
			case len(f) >= 3 && f[0] == "=>":
				// A replaced module: what was built is the replacement.
				delete(out, last)
				out[f[1]+"@"+f[2]] = true
			}
		}
	}
	return out
}

// checkMachine: every binary in dir is a static Linux executable for arch.
func checkMachine(t *testing.T, dir, arch string) {
	t.Helper()
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[arch]
	entries, err := os.ReadDir(dir)
	must(t, err)
	for _, e := range entries {
		f, err := elf.Open(filepath.Join(dir, e.Name()))
		must(t, err)
		interp := f.Section(".interp")
		if f.Machine != want || interp != nil {
			t.Errorf("%s/%s: machine %v (want %v), dynamic loader section %v", arch, e.Name(), f.Machine, want, interp != nil)
		}
		_ = f.Close()
	}
}

func setDiff(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func digestOf(ref string) string {
	_, d, _ := strings.Cut(ref, "@")
	return d
}

func readEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		out[k] = v
	}
	return out
}

// tool is the path of a tool hack/tools.sh builds into bin/.
func tool(t *testing.T, program string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(root, "hack", "tools.sh"), program)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/tools.sh %s: %v", program, err)
	}
	return strings.TrimSpace(string(out))
}

func runIn(ctx context.Context, t *testing.T, dir string, env []string, program string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", program, strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
