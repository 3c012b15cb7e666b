// Command imagebuild writes a container image without a container engine:
// files (static binaries, small trees) on an empty base, with entrypoint and
// user set, as an OCI image archive that `ctr images import` and registries'
// tooling accept. `make image-tar` uses it to build the operator image from the
// same static binaries the Dockerfile builds; hack/cluster uses it for the
// pause image and for the stand-in CWAC image, laid out as CWAC's Dockerfile
// lays out CWAC's (symbolic links, a directory of its own owner and mode,
// VOLUME, CMD).
//
//	imagebuild --out bin/images/cwac-operator.tar --tag cwac-operator:dev \
//	  --file /manager=bin/manager --entrypoint /manager --user 65532:65532
//
// With --push it pushes to a registry instead (make release): one image per
// --platform, their host paths naming the platform's architecture as {arch},
// under one index when there are several; it prints the pushed digest.
//
//	imagebuild --push registry.example/cwac-operator:v1.2.0 \
//	  --platform linux/amd64 --platform linux/arm64 \
//	  --file /manager=bin/release/{arch}/manager --entrypoint /manager
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
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

type mapping []string

func (m *mapping) String() string     { return strings.Join(*m, ",") }
func (m *mapping) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	var files, dirs, mkdirs, symlinks, volumes, env, platforms mapping
	out := flag.String("out", "", "OCI archive to write")
	tag := flag.String("tag", "", "image reference recorded in the archive, e.g. cwac-operator:dev")
	push := flag.String("push", "", "registry reference to push to instead of writing an archive, e.g. registry.example/cwac-operator:v1.2.0")
	entrypoint := flag.String("entrypoint", "", "entrypoint, space-separated (none if not given)")
	cmd := flag.String("cmd", "", "command (CMD), space-separated")
	user := flag.String("user", "65532:65532", "user:group the image runs as")
	workdir := flag.String("workdir", "/", "working directory")
	flag.Var(&files, "file", "IMAGE_PATH=HOST_PATH (repeatable); executables keep their mode")
	flag.Var(&dirs, "dir", "IMAGE_DIR=HOST_DIR copied recursively, symlinks followed (repeatable)")
	flag.Var(&mkdirs, "mkdir", "IMAGE_DIR[=UID:GID:MODE] an empty directory, 0:0:0755 unless given, mode in octal (repeatable)")
	flag.Var(&symlinks, "symlink", "IMAGE_PATH=TARGET a symbolic link (repeatable)")
	flag.Var(&volumes, "volume", "IMAGE_DIR declared a volume (VOLUME; repeatable)")
	flag.Var(&env, "env", "NAME=VALUE (repeatable); a later NAME replaces an earlier one, PATH's default too")
	flag.Var(&platforms, "platform",
		"os/arch to build for (repeatable; only with --push when more than one); {arch} in a host path is its arch (default: linux/"+runtime.GOARCH+")")
	flag.Parse()
	if (*out == "" || *tag == "") == (*push == "") {
		fmt.Fprintln(os.Stderr, "imagebuild: give --out and --tag (an archive), or --push (a registry)")
		os.Exit(2)
	}
	sp := spec{out: *out, tag: *tag, push: *push, platforms: platforms, entrypoint: *entrypoint, cmd: *cmd, user: *user, workdir: *workdir,
		files: files, dirs: dirs, mkdirs: mkdirs, symlinks: symlinks, volumes: volumes, env: env}
	build := build
	if sp.push != "" {
		build = pushImages
	}
	if err := build(sp); err != nil {
		fmt.Fprintln(os.Stderr, "imagebuild:", err)
		os.Exit(1)
	}
}

// entry is one file, directory or symbolic link (link set) of the layer,
// owned by uid:gid (root unless set).
type entry struct {
	name     string
	mode     int64
	data     []byte
	dir      bool
	link     string
	uid, gid int
}

// spec is one image to build: the archive to write, the reference recorded
// in it, the image's config, and its content.
type spec struct {
	out, tag         string
	push             string   // registry reference (instead of out and tag)
	platforms        []string // os/arch (none: linux and this machine's arch)
	entrypoint, cmd  string   // space-separated
	user             string   // uid:gid
	workdir          string   // working directory
	files, dirs, env []string // IMAGE_PATH=HOST_PATH, IMAGE_DIR=HOST_DIR, NAME=VALUE
	mkdirs           []string // IMAGE_DIR[=UID:GID:MODE]
	symlinks         []string // IMAGE_PATH=TARGET
	volumes          []string // IMAGE_DIR
}

func build(sp spec) error {
	ref, err := name.ParseReference(sp.tag)
	if err != nil {
		return fmt.Errorf("--tag: %w", err)
	}
	plats, err := parsePlatforms(sp.platforms)
	if err != nil {
		return err
	}
	if len(plats) != 1 {
		return fmt.Errorf("--platform: an archive holds one platform, not %d (push several with --push)", len(plats))
	}
	img, err := platformImage(sp, plats[0])
	if err != nil {
		return err
	}
	full := ref.Name()
	if reg := ref.Context().RegistryStr(); reg == name.DefaultRegistry {
		full = "docker.io/" + strings.TrimPrefix(full, reg+"/") // containerd's spelling
	}
	if err := writeArchive(sp.out, img, plats[0], ref.Identifier(), full); err != nil {
		return err
	}
	digest, _ := img.Digest()
	fmt.Printf("%s %s %s\n", sp.out, full, digest)
	return nil
}

// pushImages builds one image per platform and pushes it, or an index of
// them when there are several, to sp.push with the credentials of the
// user's container configuration (~/.docker/config.json). A registry on a
// loopback or private address is spoken to over plain HTTP, as
// go-containerregistry does for such names. It prints the reference and the
// digest pushed, then each platform and its image's digest, a line each.
func pushImages(sp spec) error {
	ref, err := name.ParseReference(sp.push)
	if err != nil {
		return fmt.Errorf("--push: %w", err)
	}
	plats, err := parsePlatforms(sp.platforms)
	if err != nil {
		return err
	}
	opts := []remote.Option{remote.WithAuthFromKeychain(authn.DefaultKeychain)}
	imgs := make([]v1.Image, len(plats))
	digests := make([]v1.Hash, len(plats))
	for i, p := range plats {
		if imgs[i], err = platformImage(sp, p); err != nil {
			return err
		}
		if digests[i], err = imgs[i].Digest(); err != nil {
			return err
		}
	}
	var digest v1.Hash
	if len(plats) == 1 {
		if err := remote.Write(ref, imgs[0], opts...); err != nil {
			return fmt.Errorf("pushing %s: %w", ref, err)
		}
		digest = digests[0]
	} else {
		adds := make([]mutate.IndexAddendum, len(plats))
		for i := range plats {
			adds[i] = mutate.IndexAddendum{Add: imgs[i], Descriptor: v1.Descriptor{Platform: &plats[i]}}
		}
		idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
		if err := remote.WriteIndex(ref, idx, opts...); err != nil {
			return fmt.Errorf("pushing %s: %w", ref, err)
		}
		if digest, err = idx.Digest(); err != nil {
			return err
		}
	}
	fmt.Printf("%s %s\n", ref.Name(), digest)
	for i, p := range plats {
		fmt.Printf("%s %s\n", p, digests[i])
	}
	return nil
}

// parsePlatforms reads --platform values (os/arch, each once); none is this
// machine's architecture on linux.
func parsePlatforms(vs []string) ([]v1.Platform, error) {
	if len(vs) == 0 {
		return []v1.Platform{{OS: "linux", Architecture: runtime.GOARCH}}, nil
	}
	var out []v1.Platform
	for _, v := range vs {
		osName, arch, ok := strings.Cut(v, "/")
		if !ok || osName == "" || arch == "" || strings.ContainsAny(arch, "/{}") {
			return nil, fmt.Errorf("--platform %q: want os/arch, such as linux/arm64", v)
		}
		p := v1.Platform{OS: osName, Architecture: arch}
		if slices.ContainsFunc(out, p.Equals) {
			return nil, fmt.Errorf("--platform %q given twice", v)
		}
		out = append(out, p)
	}
	return out, nil
}

// platformImage is sp's image for platform p: {arch} in --file and --dir
// host paths is p's architecture.
func platformImage(sp spec, p v1.Platform) (v1.Image, error) {
	sp.files, sp.dirs = withArch(sp.files, p.Architecture), withArch(sp.dirs, p.Architecture)
	entries, err := collect(sp)
	if err != nil {
		return nil, err
	}
	return image(sp, entries, p)
}

func withArch(mappings []string, arch string) []string {
	out := make([]string, len(mappings))
	for i, m := range mappings {
		dst, src, _ := strings.Cut(m, "=")
		out[i] = dst + "=" + strings.ReplaceAll(src, "{arch}", arch)
	}
	return out
}

// collect gathers the image's files, directories and links, with their
// parents (root's, mode 0755, unless given), a user database and /tmp. A
// --mkdir's owner and mode win over a directory copied or implied at the
// same path.
func collect(sp spec) (map[string]entry, error) {
	uid, gid, _ := strings.Cut(sp.user, ":")
	gid = orDefault(gid, uid)
	entries := map[string]entry{}
	addParents := func(p string) {
		for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
			if _, ok := entries[d]; !ok {
				entries[d] = entry{name: d, mode: 0o755, dir: true}
			}
		}
	}
	for _, f := range sp.files {
		dst, src, ok := strings.Cut(f, "=")
		if !ok || !path.IsAbs(dst) {
			return nil, fmt.Errorf("--file %q: want /image/path=host/path", f)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return nil, err
		}
		info, err := os.Stat(src)
		if err != nil {
			return nil, err
		}
		entries[dst] = entry{name: dst, mode: fileMode(info), data: data}
		addParents(dst)
	}
	for _, d := range sp.dirs {
		dst, src, ok := strings.Cut(d, "=")
		if !ok || !path.IsAbs(dst) {
			return nil, fmt.Errorf("--dir %q: want /image/dir=host/dir", d)
		}
		if err := copyTree(src, dst, entries); err != nil {
			return nil, err
		}
		addParents(dst)
	}
	for _, l := range sp.symlinks {
		dst, target, ok := strings.Cut(l, "=")
		if !ok || !path.IsAbs(dst) || target == "" {
			return nil, fmt.Errorf("--symlink %q: want /image/path=target", l)
		}
		entries[dst] = entry{name: dst, mode: 0o777, link: target}
		addParents(dst)
	}
	for _, d := range sp.mkdirs {
		e, err := parseMkdir(d)
		if err != nil {
			return nil, err
		}
		entries[e.name] = e
		addParents(e.name)
	}
	// A user database, so tools that look the user up find it.
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%s:%s:nonroot:/home/nonroot:/sbin/nologin\n", uid, gid)
	entries["/etc/passwd"] = entry{name: "/etc/passwd", mode: 0o644, data: []byte(passwd)}
	entries["/etc/group"] = entry{name: "/etc/group", mode: 0o644, data: []byte(fmt.Sprintf("root:x:0:\nnonroot:x:%s:\n", gid))}
	entries["/etc"] = entry{name: "/etc", mode: 0o755, dir: true}
	entries["/tmp"] = entry{name: "/tmp", mode: 0o1777, dir: true}
	return entries, nil
}

// parseMkdir reads --mkdir's IMAGE_DIR[=UID:GID:MODE].
func parseMkdir(v string) (entry, error) {
	dir, owner, hasOwner := strings.Cut(v, "=")
	e := entry{name: path.Clean(dir), mode: 0o755, dir: true}
	if !path.IsAbs(dir) || e.name == "/" {
		return entry{}, fmt.Errorf("--mkdir %q: want /image/dir[=uid:gid:mode]", v)
	}
	if !hasOwner {
		return e, nil
	}
	parts := strings.Split(owner, ":")
	if len(parts) != 3 {
		return entry{}, fmt.Errorf("--mkdir %q: want uid:gid:mode after =, such as 1000:1000:0700", v)
	}
	var err error
	if e.uid, err = strconv.Atoi(parts[0]); err != nil || e.uid < 0 {
		return entry{}, fmt.Errorf("--mkdir %q: uid %q is not a number of 0 or more", v, parts[0])
	}
	if e.gid, err = strconv.Atoi(parts[1]); err != nil || e.gid < 0 {
		return entry{}, fmt.Errorf("--mkdir %q: gid %q is not a number of 0 or more", v, parts[1])
	}
	if e.mode, err = strconv.ParseInt(parts[2], 8, 64); err != nil || e.mode < 0 || e.mode > 0o7777 {
		return entry{}, fmt.Errorf("--mkdir %q: mode %q is not an octal mode such as 0755", v, parts[2])
	}
	return e, nil
}

// mergeEnv is base with overrides applied in order: a NAME already set is
// replaced where it stands, a new one is added at the end.
func mergeEnv(base, overrides []string) []string {
	out := append([]string(nil), base...)
	for _, kv := range overrides {
		key, _, _ := strings.Cut(kv, "=")
		i := slices.IndexFunc(out, func(have string) bool { k, _, _ := strings.Cut(have, "="); return k == key })
		if i >= 0 {
			out[i] = kv
		} else {
			out = append(out, kv)
		}
	}
	return out
}

// fileMode is 0755 for executables and 0644 for everything else.
func fileMode(info fs.FileInfo) int64 {
	if info.Mode()&0o111 != 0 {
		return 0o755
	}
	return 0o644
}

// layerTar is the one layer: entries in name order, with a fixed time, so
// the same input gives the same digest.
func layerTar(entries map[string]entry) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		e := entries[n]
		hdr := &tar.Header{Name: strings.TrimPrefix(n, "/"), Mode: e.mode, Uid: e.uid, Gid: e.gid, ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		switch {
		case e.dir:
			hdr.Typeflag, hdr.Name = tar.TypeDir, hdr.Name+"/"
		case e.link != "":
			hdr.Typeflag, hdr.Linkname = tar.TypeSymlink, e.link
		default:
			hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if hdr.Typeflag == tar.TypeReg {
			if _, err := tw.Write(e.data); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// image is the OCI image of entries on an empty base, with sp's config, for
// platform p.
func image(sp spec, entries map[string]entry, p v1.Platform) (v1.Image, error) {
	data, err := layerTar(entries)
	if err != nil {
		return nil, err
	}
	opener := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	layer, err := tarball.LayerFromOpener(opener, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.Architecture, cfg.OS = p.Architecture, p.OS
	cfg.Created = v1.Time{Time: time.Unix(0, 0)}
	cfg.Config.User = sp.user
	cfg.Config.WorkingDir = sp.workdir
	cfg.Config.Env = mergeEnv([]string{"PATH=/usr/local/bin:/usr/bin:/bin"}, sp.env)
	if sp.entrypoint != "" {
		cfg.Config.Entrypoint = strings.Fields(sp.entrypoint)
	}
	if sp.cmd != "" {
		cfg.Config.Cmd = strings.Fields(sp.cmd)
	}
	for _, v := range sp.volumes {
		if !path.IsAbs(v) {
			return nil, fmt.Errorf("--volume %q: want an absolute path in the image", v)
		}
		if cfg.Config.Volumes == nil {
			cfg.Config.Volumes = map[string]struct{}{}
		}
		cfg.Config.Volumes[v] = struct{}{}
	}
	return mutate.ConfigFile(img, cfg)
}

// writeArchive writes img as an OCI image archive: an OCI layout in a
// temporary directory, then tarred.
func writeArchive(out string, img v1.Image, p v1.Platform, identifier, fullName string) (err error) {
	tmp, err := os.MkdirTemp("", "imagebuild")
	if err != nil {
		return err
	}
	defer func() {
		if rerr := os.RemoveAll(tmp); err == nil {
			err = rerr
		}
	}()
	lp, err := layout.Write(tmp, empty.Index)
	if err != nil {
		return err
	}
	if err := lp.AppendImage(img, layout.WithPlatform(p), layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": identifier,
		"io.containerd.image.name":          fullName,
	})); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return tarDir(tmp, out)
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
		entries[target] = entry{name: target, mode: fileMode(info), data: data}
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
		_, err = io.Copy(tw, src)
		if cerr := src.Close(); err == nil {
			err = cerr
		}
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
