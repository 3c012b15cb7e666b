package objectstore

import (
	"github.com/a11y-dev/cwac-operator/internal/resultspath"

	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
)

// opReadDir names a directory listing in its errors.
const opReadDir = "readdir"

// maxDirEntries bounds a directory listing: a scan's results directory
// holds a few dozen files, its shards directory at most 64.
const maxDirEntries = 10000

// FS is the directory rel (a scan's, "namespace/name") as a read-only
// fs.FS: names are checked as fs.ValidPath and the store's own segment
// rule, so no key outside prefix/rel/ can be named, and every request
// carries ctx. Files support Seek and ReadAt (ranged reads), as the
// results readers' page index needs.
func (s *Store) FS(ctx context.Context, rel string) (fs.FS, error) {
	if err := resultspath.Check(rel); err != nil {
		return nil, fmt.Errorf("results bucket: %v", err)
	}
	return &bucketFS{ctx: ctx, s: s, root: s.key(rel)}, nil
}

// Root is every scan's results, the whole of the store's prefix, as FS
// gives one scan's: what the readers look scans up in.
func (s *Store) Root(ctx context.Context) fs.FS {
	return &bucketFS{ctx: ctx, s: s, root: s.prefix}
}

type bucketFS struct {
	ctx  context.Context
	s    *Store
	root string // the key prefix of the directory, without a trailing '/' ("" for the bucket's root)
}

// under is what the keys inside the directory key start with.
func under(key string) string {
	if key == "" {
		return ""
	}
	return key + "/"
}

var (
	_ fs.ReadDirFS = (*bucketFS)(nil)
	_ fs.StatFS    = (*bucketFS)(nil)
)

// keyOf is name's key, or an error for a name no key may come from.
func (b *bucketFS) keyOf(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return b.root, nil
	}
	if err := resultspath.Check(name); err != nil {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return under(b.root) + name, nil
}

// Open opens a file (its object) or a directory (a prefix with keys).
func (b *bucketFS) Open(name string) (fs.File, error) {
	info, key, err := b.stat("open", name)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return &bucketDir{fs: b, key: key, info: info}, nil
	}
	// The object read is the one stated: a file replaced in between
	// fails the read rather than mixing two versions.
	opts := minio.GetObjectOptions{}
	if etag := info.(objectInfo).etag; etag != "" {
		_ = opts.SetMatchETag(etag)
	}
	obj, err := b.s.client.GetObject(b.ctx, b.s.bucket, key, opts)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fail(opRead, key, err)}
	}
	return &bucketFile{obj: obj, info: info, key: key, name: name}, nil
}

// Stat states a file or a directory.
func (b *bucketFS) Stat(name string) (fs.FileInfo, error) {
	info, _, err := b.stat("stat", name)
	return info, err
}

func (b *bucketFS) stat(op, name string) (fs.FileInfo, string, error) {
	key, err := b.keyOf(op, name)
	if err != nil {
		return nil, "", err
	}
	base := path.Base(name)
	if name != "." {
		oi, err := b.s.client.StatObject(b.ctx, b.s.bucket, key, minio.StatObjectOptions{})
		if err == nil {
			return objectInfo{name: base, size: oi.Size, mod: oi.LastModified, etag: oi.ETag}, key, nil
		}
		if resp := minio.ToErrorResponse(err); resp.Code != minio.NoSuchKey && resp.StatusCode != 404 {
			return nil, "", &fs.PathError{Op: op, Path: name, Err: fail(opRead, key, err)}
		}
	}
	// Not an object: a directory when some key is under it.
	ctx, cancel := context.WithCancel(b.ctx) // ends the listing after its first key
	defer cancel()
	oi, found := <-b.s.client.ListObjects(ctx, b.s.bucket, minio.ListObjectsOptions{Prefix: under(key), MaxKeys: 1})
	if found && oi.Err != nil {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: fail(opList, key, oi.Err)}
	}
	if !found && name != "." {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	// The root of a scan with nothing uploaded yet reads as empty.
	return objectInfo{name: base, dir: true}, key, nil
}

// ReadDir lists a directory, sorted by name.
func (b *bucketFS) ReadDir(name string) ([]fs.DirEntry, error) {
	key, err := b.keyOf(opReadDir, name)
	if err != nil {
		return nil, err
	}
	entries, err := b.list(key)
	if err != nil {
		return nil, &fs.PathError{Op: opReadDir, Path: name, Err: err}
	}
	if len(entries) == 0 && name != "." {
		if _, _, err := b.stat(opReadDir, name); err != nil {
			return nil, err
		}
		return nil, &fs.PathError{Op: opReadDir, Path: name, Err: errors.New("not a directory")}
	}
	return entries, nil
}

// list reads the entries directly under key/.
func (b *bucketFS) list(key string) ([]fs.DirEntry, error) {
	var out []fs.DirEntry
	ctx, cancel := context.WithCancel(b.ctx)
	defer cancel()
	for oi := range b.s.client.ListObjects(ctx, b.s.bucket, minio.ListObjectsOptions{Prefix: under(key)}) {
		if oi.Err != nil {
			return nil, fail(opList, key, oi.Err)
		}
		rest := strings.TrimPrefix(oi.Key, under(key))
		dir := strings.HasSuffix(rest, "/")
		rest = strings.TrimSuffix(rest, "/")
		if !resultspath.SafeName(rest) {
			continue // a directory marker, or a key no fs.FS name reaches
		}
		if len(out) == maxDirEntries {
			return nil, fmt.Errorf("more than %d entries in %s", maxDirEntries, key)
		}
		info := objectInfo{name: rest, dir: dir}
		if !dir {
			info.size, info.mod, info.etag = oi.Size, oi.LastModified, oi.ETag
		}
		out = append(out, fs.FileInfoToDirEntry(info))
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// objectInfo is an object's or a directory's fs.FileInfo.
type objectInfo struct {
	name string
	size int64
	mod  time.Time
	etag string
	dir  bool
}

func (i objectInfo) Name() string       { return i.name }
func (i objectInfo) Size() int64        { return i.size }
func (i objectInfo) ModTime() time.Time { return i.mod }
func (i objectInfo) IsDir() bool        { return i.dir }
func (i objectInfo) Sys() any           { return nil }
func (i objectInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

// bucketFile reads an object; nothing is fetched until the first read.
type bucketFile struct {
	obj       *minio.Object
	info      fs.FileInfo
	key, name string
}

func (f *bucketFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *bucketFile) Close() error               { return f.obj.Close() }

func (f *bucketFile) Read(p []byte) (int, error) {
	n, err := f.obj.Read(p)
	return n, f.wrap("read", err)
}

func (f *bucketFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.obj.ReadAt(p, off)
	return n, f.wrap("read", err)
}

func (f *bucketFile) Seek(off int64, whence int) (int64, error) {
	n, err := f.obj.Seek(off, whence)
	return n, f.wrap("seek", err)
}

// wrap keeps io.EOF as it is (readers compare it) and says the cause of
// anything else.
func (f *bucketFile) wrap(op string, err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return &fs.PathError{Op: op, Path: f.name, Err: fail(opRead, f.key, err)}
}

// bucketDir is a directory opened with Open.
type bucketDir struct {
	fs      *bucketFS
	key     string
	info    fs.FileInfo
	entries []fs.DirEntry
	read    bool
}

func (d *bucketDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *bucketDir) Close() error               { return nil }
func (d *bucketDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: opRead, Path: d.info.Name(), Err: errors.New("is a directory")}
}

// ReadDir follows fs.ReadDirFile: n > 0 returns at most n entries and
// io.EOF at the end; n <= 0 returns the rest.
func (d *bucketDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		entries, err := d.fs.list(d.key)
		if err != nil {
			return nil, &fs.PathError{Op: opReadDir, Path: d.info.Name(), Err: err}
		}
		d.entries, d.read = entries, true
	}
	if n <= 0 {
		out := d.entries
		d.entries = nil
		return out, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	out := d.entries[:n:n]
	d.entries = d.entries[n:]
	return out, nil
}
