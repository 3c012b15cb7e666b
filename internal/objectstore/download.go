package objectstore

import (
	"github.com/a11y-dev/cwac-operator/internal/resultspath"

	"context"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/minio/minio-go/v7"
)

// maxDownloadFiles bounds what Download fetches: a scan's directory holds
// a few dozen files per shard.
const maxDownloadFiles = 100000

// Download copies every key under rel into dir (made when missing), each
// under its name relative to rel, and says what it fetched. A key whose
// name is not a safe relative path is refused, not written. Nothing under
// rel (a baseline deleted since) fetches nothing and is not an error.
func (s *Store) Download(ctx context.Context, rel, dir string) (Uploaded, error) {
	var got Uploaded
	if err := resultspath.Check(rel); err != nil {
		return got, fmt.Errorf("results bucket: %v", err)
	}
	root, err := openDownloadDir(dir)
	if err != nil {
		return got, err
	}
	defer func() { _ = root.Close() }()
	prefix := s.key(rel) + "/"
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for oi := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if oi.Err != nil {
			return got, fail(opList, prefix, oi.Err)
		}
		name := strings.TrimPrefix(oi.Key, prefix)
		if strings.HasSuffix(name, "/") {
			continue // a directory marker
		}
		if err := resultspath.Check(name); err != nil {
			return got, fmt.Errorf("results bucket: key %q: %v", oi.Key, err)
		}
		if got.Files == maxDownloadFiles {
			return got, fmt.Errorf("results bucket: more than %d keys under %s", maxDownloadFiles, prefix)
		}
		n, err := s.downloadFile(ctx, root, oi, name)
		if err != nil {
			return got, err
		}
		got.Files++
		got.Bytes += n
	}
	return got, nil
}

// downloadFile writes one object to name under root, checking its length.
func (s *Store) downloadFile(ctx context.Context, root *os.Root, oi minio.ObjectInfo, name string) (int64, error) {
	if d := path.Dir(name); d != "." {
		if err := root.MkdirAll(d, 0o750); err != nil {
			return 0, err
		}
	}
	obj, err := s.client.GetObject(ctx, s.bucket, oi.Key, minio.GetObjectOptions{})
	if err != nil {
		return 0, fail(opRead, oi.Key, err)
	}
	defer func() { _ = obj.Close() }()
	return writeChecked(root, name, obj, oi.Size, oi.Key)
}

// writeChecked writes what r holds to name under root and fails unless it
// is exactly size bytes; key names the object in a bucket error. A write
// the pod's disk refused is said as the pod's, not the bucket's.
func writeChecked(root *os.Root, name string, r io.Reader, size int64, key string) (int64, error) {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return 0, err
	}
	w := &localWriter{w: f}
	n, err := io.Copy(w, io.LimitReader(r, size+1))
	if cerr := f.Close(); w.err == nil && cerr != nil {
		w.err = cerr
	}
	switch {
	case w.err != nil:
		return n, fmt.Errorf("writing %s: %w", name, w.err)
	case err != nil:
		return n, fail(opRead, key, err)
	case n != size:
		return n, &Error{Op: opRead, Key: key, Cause: CauseCutOff, Err: fmt.Errorf("read %d bytes of %d", n, size)}
	}
	return n, nil
}

// localWriter keeps its writer's own error apart from the reader's.
type localWriter struct {
	w   io.Writer
	err error
}

func (l *localWriter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if err != nil {
		l.err = err
	}
	return n, err
}

// openDownloadDir makes dir when missing and opens it as the root every
// downloaded file is written under, so no name can leave it; the caller
// closes it.
func openDownloadDir(dir string) (*os.Root, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	return os.OpenRoot(dir)
}
