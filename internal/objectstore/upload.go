package objectstore

import (
	"github.com/a11y-dev/cwac-operator/internal/resultspath"

	"context"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"os"
	"path"
	"slices"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/a11y-dev/cwac-operator/internal/backoff"
)

// Upload's part size and parallel parts: a large file goes up in parts of
// partSize, partThreads at a time, so the uploading pod holds at most
// partSize × partThreads of it in memory.
const (
	partSize    = 16 << 20
	partThreads = 2
)

// UploadRetry is how often Upload tries a file again after a failure
// that trying again can mend (the bucket unreachable, the transfer cut
// off, the service failing), and how long it waits between tries.
var UploadRetry = backoff.Doubling{First: 2 * time.Second, Max: time.Minute, Attempts: 8}

// Uploaded is what Upload sent.
type Uploaded struct {
	Files int
	Bytes int64
}

// Upload copies every regular file under dir (symbolic links and other
// non-regular files are left out, and so are the directories of dir named
// in skip) to the keys under rel, keeping the same relative names, and
// confirms each by reading its size back from the bucket. The local files
// stay: the caller removes them once Upload returns nil. A failure another
// try may mend is retried per retry; the error names the file and its
// Cause.
func (s *Store) Upload(ctx context.Context, dir, rel string, retry backoff.Doubling, skip ...string) (Uploaded, error) {
	if err := resultspath.Check(rel); err != nil {
		return Uploaded{}, fmt.Errorf("results bucket: %v", err)
	}
	return uploadTree(ctx, dir, retry, skip, func(f *os.File, name string, size int64) error {
		return s.uploadFile(ctx, f, name, s.key(rel+"/"+name), size)
	})
}

// sendFunc sends one file, open at its start, of size bytes, named name
// under the directory uploaded.
type sendFunc func(f *os.File, name string, size int64) error

// uploadTree calls send for every regular file under dir but the
// directories named in skip, each name checked and the file opened afresh
// for each try, trying a file again while that may help (a failure that is
// no permanent *Error, up to retry's attempts), and counts what was sent.
func uploadTree(ctx context.Context, dir string, retry backoff.Doubling, skip []string, send sendFunc) (Uploaded, error) {
	var up Uploaded
	if err := retry.Check(); err != nil {
		return up, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return up, fmt.Errorf("results to upload: %v", err)
	}
	defer func() { _ = root.Close() }()
	err = fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && slices.Contains(skip, name) {
			return fs.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if err := resultspath.Check(name); err != nil {
			return fmt.Errorf("results to upload: %v", err)
		}
		for failed := int32(1); ; failed++ {
			n, err := sendFile(root, name, send)
			var e *Error
			if err == nil {
				up.Files++
				up.Bytes += n
				return nil
			}
			if !errors.As(err, &e) || e.Permanent() || failed >= retry.Attempts {
				return err
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%w (then: %v)", err, ctx.Err())
			case <-time.After(retry.After(failed)):
			}
		}
	})
	return up, err
}

// sendFile opens name under root and sends it, saying its size once sent.
func sendFile(root *os.Root, name string, send sendFunc) (int64, error) {
	f, err := root.Open(name)
	if err != nil {
		return 0, fmt.Errorf("results to upload: %v", err)
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("results to upload: %v", err)
	}
	if err := send(f, name, info.Size()); err != nil {
		return 0, err
	}
	return info.Size(), nil
}

// uploadFile sends one file and confirms the bucket holds all of it.
func (s *Store) uploadFile(ctx context.Context, f *os.File, name, key string, size int64) error {
	_, err := s.client.PutObject(ctx, s.bucket, key, f, size, minio.PutObjectOptions{
		ContentType: contentType(name), PartSize: partSize, NumThreads: partThreads,
	})
	if err != nil {
		return fail(opUpload, key, err)
	}
	got, err := s.client.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return fail(opUpload, key, err)
	}
	if got.Size != size {
		return &Error{Op: opUpload, Key: key, Cause: CauseCutOff, Err: fmt.Errorf("the bucket holds %d bytes of %d", got.Size, size)}
	}
	return nil
}

// contentType is a result file's media type by its extension.
func contentType(name string) string {
	switch path.Ext(name) {
	case ".csv":
		return "text/csv; charset=utf-8"
	case ".json", ".sarif":
		return "application/json"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// Delete removes every key under rel (a scan's results) and says how many.
func (s *Store) Delete(ctx context.Context, rel string) (int, error) {
	if err := resultspath.Check(rel); err != nil {
		return 0, fmt.Errorf("results bucket: %v", err)
	}
	prefix := s.key(rel) + "/"
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	keys := make(chan minio.ObjectInfo)
	var listErr error
	go func() {
		defer close(keys)
		for oi := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
			if oi.Err != nil {
				listErr = oi.Err
				return
			}
			select {
			case keys <- oi:
			case <-ctx.Done():
				return
			}
		}
	}()
	n := 0
	var firstErr error
	for re := range s.client.RemoveObjectsWithResult(ctx, s.bucket, keys, minio.RemoveObjectsOptions{}) {
		if re.Err != nil {
			if firstErr == nil {
				firstErr = fail(opDelete, re.ObjectName, re.Err)
			}
			continue
		}
		n++
	}
	if listErr != nil {
		return n, fail(opDelete, prefix, listErr)
	}
	return n, firstErr
}
