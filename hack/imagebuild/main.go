// Command imagebuild writes a container image without a container engine:
// files (static binaries, small trees) on an empty base, with entrypoint and
// user set, as an OCI image archive that `ctr images import` and registries'
// tooling accept. `make image-tar` uses it to build the operator image from the
// same static binaries the Dockerfile builds.
//
//	imagebuild --out bin/images/cwac-operator.tar --tag cwac-operator:dev \
//	  --file /manager=bin/manager --entrypoint /manager --user 65532:65532
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

type mapping []string

func (m *mapping) String() string     { return strings.Join(*m, ",") }
func (m *mapping) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	var files, dirs, env mapping
	out := flag.String("out", "", "OCI archive to write")
	tag := flag.String("tag", "", "image reference recorded in the archive, e.g. cwac-operator:dev")
	entrypoint := flag.String("entrypoint", "", "entrypoint, space-separated")
	user := flag.String("user", "65532:65532", "user:group the image runs as")
	workdir := flag.String("workdir", "/", "working directory")
	flag.Var(&files, "file", "IMAGE_PATH=HOST_PATH (repeatable); executables keep their mode")
	flag.Var(&dirs, "dir", "IMAGE_DIR=HOST_DIR copied recursively, symlinks followed (repeatable)")
	flag.Var(&env, "env", "NAME=VALUE (repeatable)")
	flag.Parse()
	if *out == "" || *tag == "" {
		fmt.Fprintln(os.Stderr, "imagebuild: --out and --tag are required")
		os.Exit(2)
	}
	if err := build(*out, *tag, *entrypoint, *user, *workdir, files, dirs, env); err != nil {
		fmt.Fprintln(os.Stderr, "imagebuild:", err)
		os.Exit(1)
	}
}

type entry struct {
	name string
	mode int64
	data []byte
	dir  bool
}

func build(out, tag, entrypoint, user, workdir string, files, dirs, env []string) error {
	ref, err := name.ParseReference(tag)
	if err != nil {
		return fmt.Errorf("--tag: %w", err)
	}
	uid, gid, _ := strings.Cut(user, ":")
	entries := map[string]entry{}
	addParents := func(p string) {
		for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
			entries[d] = entry{name: d, mode: 0o755, dir: true}
		}
	}
	for _, f := range files {
		dst, src, ok := strings.Cut(f, "=")
		if !ok || !path.IsAbs(dst) {
			return fmt.Errorf("--file %q: want /image/path=host/path", f)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		info, _ := os.Stat(src)
		mode := int64(0o644)
		if info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		entries[dst] = entry{name: dst, mode: mode, data: data}
		addParents(dst)
	}
	for _, d := range dirs {
		dst, src, ok := strings.Cut(d, "=")
		if !ok || !path.IsAbs(dst) {
			return fmt.Errorf("--dir %q: want /image/dir=host/dir", d)
		}
		if err := copyTree(src, dst, entries); err != nil {
			return err
		}
		addParents(dst)
	}
	// A user database, so tools that look the user up find it.
	entries["/etc/passwd"] = entry{name: "/etc/passwd", mode: 0o644, data: []byte(fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%s:%s:nonroot:/home/nonroot:/sbin/nologin\n", uid, orDefault(gid, uid)))}
	entries["/etc/group"] = entry{name: "/etc/group", mode: 0o644, data: []byte(fmt.Sprintf("root:x:0:\nnonroot:x:%s:\n", orDefault(gid, uid)))}
	entries["/etc"] = entry{name: "/etc", mode: 0o755, dir: true}
	entries["/tmp"] = entry{name: "/tmp", mode: 0o1777, dir: true}

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	epoch := time.Unix(0, 0)
	for _, n := range names {
		e := entries[n]
		hdr := &tar.Header{Name: strings.TrimPrefix(n, "/"), Mode: e.mode, ModTime: epoch, Format: tar.FormatPAX}
		if e.dir {
			hdr.Typeflag, hdr.Name = tar.TypeDir, hdr.Name+"/"
		} else {
			hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if !e.dir {
			if _, err := tw.Write(e.data); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil }, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cfg, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cfg = cfg.DeepCopy()
	cfg.Architecture, cfg.OS = runtime.GOARCH, "linux"
	cfg.Created = v1.Time{Time: epoch}
	cfg.Config.User = user
	cfg.Config.WorkingDir = workdir
	cfg.Config.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin"}, env...)
	if entrypoint != "" {
		cfg.Config.Entrypoint = strings.Fields(entrypoint)
	}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return err
	}

	// OCI layout in a temporary directory, then tarred: an OCI image archive.
	tmp, err := os.MkdirTemp("", "imagebuild")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	lp, err := layout.Write(tmp, empty.Index)
	if err != nil {
		return err
	}
	full := ref.Name()
	if reg := ref.Context().RegistryStr(); reg == name.DefaultRegistry {
		full = "docker.io/" + strings.TrimPrefix(full, reg+"/") // containerd's spelling
	}
	if err := lp.AppendImage(img, layout.WithPlatform(v1.Platform{OS: "linux", Architecture: runtime.GOARCH}), layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": ref.Identifier(),
		"io.containerd.image.name":          full,
	})); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := tarDir(tmp, out); err != nil {
		return err
	}
	digest, _ := img.Digest()
	fmt.Printf("%s %s %s\n", out, full, digest)
	return nil
}

// copyTree adds a host directory tree at dst, following symlinks (to files
// and to directories alike).
func copyTree(src, dst string, entries map[string]entry) error {
	return filepath.WalkDir(src, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := path.Join(dst, filepath.ToSlash(rel))
		info, err := os.Stat(p) // follow symlinks
		if err != nil {
			return err
		}
		if info.IsDir() {
			entries[target] = entry{name: target, mode: 0o755, dir: true}
			if de.Type()&fs.ModeSymlink != 0 && p != src {
				return copyTree(p, target, entries) // WalkDir does not descend into symlinks
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		mode := int64(0o644)
		if info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		entries[target] = entry{name: target, mode: mode, data: data}
		return nil
	})
}

func tarDir(dir, out string) error {
	f, err := os.Create(out + ".tmp")
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := de.Info()
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		hdr.ModTime = time.Unix(0, 0)
		if de.IsDir() {
			hdr.Name += "/"
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if de.IsDir() {
			return nil
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(tw, src)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(out+".tmp", out)
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}
