//go:build integration

package objectstore_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/a11y-dev/cwac-operator/internal/backoff"
	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/testutil/freeport"
	"github.com/a11y-dev/cwac-operator/internal/testutil/seaweedfs"
)

const bucket = "cwac-results"

// quick tries a file twice, a second apart: the failure tests wait little.
var quick = backoff.Doubling{First: 100 * time.Millisecond, Max: 100 * time.Millisecond, Attempts: 2}

// realResults is the real CWAC scan the repository keeps, as a scan's
// directory holds it (its CWAC results directory inside).
const realResults = "../../testdata/cwac-results"

func storeFor(t *testing.T, srv *seaweedfs.Server, a seaweedfs.Account, mut func(*objectstore.Config)) *objectstore.Store {
	t.Helper()
	cfg := srv.Config(t, a, bucket, "cwac/test")
	// No region: the client asks the service for it, as with a
	// configuration that names none; the causes below are said that way.
	cfg.Region = ""
	if mut != nil {
		mut(&cfg)
	}
	st, err := objectstore.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestBucket runs every case against one SeaweedFS (it takes seconds to start).
func TestBucket(t *testing.T) {
	srv := seaweedfs.Start(t, false)
	srv.MakeBucket(t, bucket)
	admin := storeFor(t, srv, srv.Admin, nil)
	if err := admin.Check(context.Background()); err != nil {
		t.Fatalf("check: %v", err)
	}
	t.Run("UploadReadsBackTheSame", func(t *testing.T) { uploadReadsBackTheSame(t, admin) })
	t.Run("Confinement", func(t *testing.T) { confinement(t, srv, admin) })
	t.Run("RootOfThePrefix", func(t *testing.T) { rootOfThePrefix(t, srv, admin) })
	t.Run("OpenAtStart", func(t *testing.T) { openAtStart(t, srv) })
	t.Run("LargeFileInParts", func(t *testing.T) { largeFileInParts(t, admin) })
	t.Run("Delete", func(t *testing.T) { deleteScan(t, srv, admin) })
	t.Run("DownloadAndSkip", func(t *testing.T) { downloadAndSkip(t, srv, admin) })
	t.Run("Failures", func(t *testing.T) { failures(t, srv) })
	t.Run("Grant", func(t *testing.T) { grant(t, srv, admin) })
	t.Run("CutOffThenRetried", func(t *testing.T) { cutOffThenRetried(t, srv) })
}

// An endpoint on https is trusted through the configured CA file, and not
// without it.
func TestBucketTLS(t *testing.T) {
	srv := seaweedfs.Start(t, true)
	srv.MakeBucket(t, bucket)
	ctx := context.Background()
	st := storeFor(t, srv, srv.Admin, func(c *objectstore.Config) { c.CAFile = srv.CAFile })
	if _, err := st.Upload(ctx, realResults, "ns/tls", quick); err != nil {
		t.Fatalf("upload over TLS: %v", err)
	}
	untrusted := storeFor(t, srv, srv.Admin, nil)
	err := untrusted.Check(ctx)
	if objectstore.CauseOf(err) != objectstore.CauseCertificate || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the CA file: %v, want the certificate refused", err)
	}
	notPEM := filepath.Join(t.TempDir(), "ca.crt")
	_ = os.WriteFile(notPEM, []byte("not a certificate"), 0o600)
	_, err = objectstore.Open(objectstore.Config{Endpoint: srv.Endpoint, Bucket: bucket, CAFile: notPEM})
	if err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("a CA file with no certificate: %v", err)
	}
}

func uploadReadsBackTheSame(t *testing.T, st *objectstore.Store) {
	ctx := context.Background()
	up, err := st.Upload(ctx, realResults, "ns/scan-a", objectstore.UploadRetry)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var bytesWant int64
	_ = filepath.WalkDir(realResults, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(realResults, p)
			want = append(want, filepath.ToSlash(rel))
			info, _ := d.Info()
			bytesWant += info.Size()
		}
		return err
	})
	if up.Files != len(want) || up.Bytes != bytesWant {
		t.Errorf("uploaded %d files, %d bytes; want %d, %d", up.Files, up.Bytes, len(want), bytesWant)
	}
	bfs, err := st.FS(ctx, "ns/scan-a")
	if err != nil {
		t.Fatal(err)
	}
	// fstest reads each file by many small ranges (a request each), so it
	// checks the fs.FS on a few small files; the real results are compared
	// byte for byte below.
	small := t.TempDir()
	for name, body := range map[string]string{"a.csv": "x,y\n1,2\n", "d/b.json": `{"b":1}`, "d/e/c.txt": "c"} {
		_ = os.MkdirAll(filepath.Join(small, filepath.Dir(name)), 0o700)
		if err := os.WriteFile(filepath.Join(small, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Upload(ctx, small, "ns/small", objectstore.UploadRetry); err != nil {
		t.Fatal(err)
	}
	smallFS, _ := st.FS(ctx, "ns/small")
	if err := fstest.TestFS(smallFS, "a.csv", "d/b.json", "d/e/c.txt"); err != nil {
		t.Fatalf("the bucket's fs.FS: %v", err)
	}
	if entries, err := fs.ReadDir(bfs, "."); err != nil || len(entries) != 6 {
		t.Fatalf("the scan's directory lists %v (%v), want its 6 entries", entries, err)
	}
	local := os.DirFS(realResults)
	for _, name := range want {
		a, _ := fs.ReadFile(local, name)
		b, err := fs.ReadFile(bfs, name)
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: read back %d bytes (%v), want the %d sent", name, len(b), err, len(a))
		}
	}
	// What the product reads from the results is the same either way.
	const cwacDir = "2026-11-21_23-18-23_real-scan-1"
	fromDisk, err := results.SummarizeFS(mustSub(t, local, cwacDir), results.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fromBucket, err := results.SummarizeFS(mustSub(t, bfs, cwacDir), results.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(fromDisk)
	b, _ := json.Marshal(fromBucket)
	if !bytes.Equal(a, b) {
		t.Errorf("summaries differ:\ndisk   %s\nbucket %s", a, b)
	}
	if fromDisk.TotalIssues == 0 {
		t.Error("the real scan summarised to no issues: the comparison proves nothing")
	}
}

func mustSub(t *testing.T, fsys fs.FS, dir string) fs.FS {
	t.Helper()
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// No name given to the scan's fs.FS reaches a key outside its prefix.
func confinement(t *testing.T, srv *seaweedfs.Server, st *objectstore.Store) {
	ctx := context.Background()
	c := srv.Client(t, srv.Admin)
	for _, key := range []string{
		"cwac/test/ns/scan-b/mine.csv", "cwac/test/ns/scan-b2/other.csv", "cwac/test/ns/secret.csv",
		"cwac/other/ns/scan-b/x.csv", "cwac/test/ns/scan-b/odd name.csv",
	} {
		if _, err := c.PutObject(ctx, bucket, key, strings.NewReader(key), int64(len(key)), minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	bfs, err := st.FS(ctx, "ns/scan-b")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := fs.ReadDir(bfs, ".")
	if err != nil || len(entries) != 1 || entries[0].Name() != "mine.csv" {
		t.Errorf("the scan's directory lists %v (%v), want mine.csv alone", entries, err)
	}
	for _, name := range []string{
		"../secret.csv", "../scan-b2/other.csv", "/mine.csv", "..", "./mine.csv", `..\secret.csv`,
		"mine.csv/", "odd name.csv", "../../../other/ns/scan-b/x.csv",
	} {
		if _, err := bfs.Open(name); err == nil {
			t.Errorf("%q opened", name)
		}
	}
	if _, err := bfs.Open("missing.csv"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
	for _, rel := range []string{"ns/../ns/scan-b", "../cwac", "", "/ns/scan-b", "ns/scan-b/"} {
		if _, err := st.FS(ctx, rel); err == nil {
			t.Errorf("FS(%q) accepted", rel)
		}
		if _, err := st.Delete(ctx, rel); err == nil {
			t.Errorf("Delete(%q) accepted", rel)
		}
		if _, err := st.Upload(ctx, realResults, rel, quick); err == nil {
			t.Errorf("Upload to %q accepted", rel)
		}
	}
}

// Root reads every scan under the prefix, and nothing beside it; with no
// prefix, the bucket's root.
func rootOfThePrefix(t *testing.T, srv *seaweedfs.Server, st *objectstore.Store) {
	ctx := context.Background()
	c := srv.Client(t, srv.Admin)
	for _, key := range []string{"cwac/test/root-ns/s1/a.csv", "cwac/test/root-ns/s2/b.csv", "cwac/testing/root-ns/s1/x.csv"} {
		if _, err := c.PutObject(ctx, bucket, key, strings.NewReader(key), int64(len(key)), minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	root := st.Root(ctx)
	if info, err := fs.Stat(root, "."); err != nil || !info.IsDir() {
		t.Fatalf("the root states as %v (%v), want a directory", info, err)
	}
	entries, err := fs.ReadDir(root, "root-ns")
	if err != nil || len(entries) != 2 || entries[0].Name() != "s1" || !entries[0].IsDir() || entries[1].Name() != "s2" {
		t.Errorf("root-ns lists %v (%v), want the directories s1 and s2", entries, err)
	}
	if b, err := fs.ReadFile(root, "root-ns/s1/a.csv"); err != nil || string(b) != "cwac/test/root-ns/s1/a.csv" {
		t.Errorf("a file through the root: %q (%v)", b, err)
	}
	for _, name := range []string{"../testing/root-ns/s1/x.csv", "/root-ns/s1/a.csv", "root-ns/../../testing"} {
		if _, err := root.Open(name); err == nil {
			t.Errorf("%q opened through the root", name)
		}
	}
	// A prefix is a directory, not a string: cwac/testing is not under cwac/test.
	if _, err := fs.Stat(root, "ing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a name continuing the prefix: %v, want fs.ErrNotExist", err)
	}
	whole := storeFor(t, srv, srv.Admin, func(c *objectstore.Config) { c.Prefix = "" }).Root(ctx)
	if b, err := fs.ReadFile(whole, "cwac/testing/root-ns/s1/x.csv"); err != nil || string(b) != "cwac/testing/root-ns/s1/x.csv" {
		t.Errorf("a file through the bucket's root: %q (%v)", b, err)
	}
	entries, err = fs.ReadDir(whole, "cwac")
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = e.IsDir()
	}
	if err != nil || !names["test"] || !names["testing"] {
		t.Errorf("the bucket's root lists cwac/ as %v (%v), want the directories test and testing among them", entries, err)
	}
}

// OpenAtStart opens nothing without a bucket, refuses a configuration it
// cannot open, and opens a bucket it cannot use yet, saying why apart.
func openAtStart(t *testing.T, srv *seaweedfs.Server) {
	if st, checkErr, err := objectstore.OpenAtStart(objectstore.Config{}); st != nil || checkErr != nil || err != nil {
		t.Errorf("no bucket configured: %v, %v, %v; want nothing", st, checkErr, err)
	}
	st, checkErr, err := objectstore.OpenAtStart(srv.Config(t, srv.Reader, bucket, "cwac/test"))
	if st == nil || checkErr != nil || err != nil {
		t.Errorf("a usable bucket: %v, %v, %v; want it opened and no complaint", st, checkErr, err)
	}
	st, checkErr, err = objectstore.OpenAtStart(srv.Config(t, srv.Admin, "no-such-bucket", ""))
	if st == nil || objectstore.CauseOf(checkErr) != objectstore.CauseNoBucket || err != nil {
		t.Errorf("a missing bucket: %v, %v, %v; want it opened and %s said apart", st, checkErr, err, objectstore.CauseNoBucket)
	}
	bad := srv.Config(t, srv.Admin, bucket, "")
	bad.Endpoint += "/a-path"
	if st, checkErr, err := objectstore.OpenAtStart(bad); st != nil || checkErr != nil || err == nil {
		t.Errorf("an endpoint with a path: %v, %v, %v; want it refused", st, checkErr, err)
	}
}

// A file larger than a part goes up in parts and reads back whole, also
// by ranges (the results readers seek).
func largeFileInParts(t *testing.T, st *objectstore.Store) {
	ctx := context.Background()
	dir := t.TempDir()
	big := make([]byte, 40<<20)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "axe_core_audit.csv"), big, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Upload(ctx, dir, "ns/big", objectstore.UploadRetry); err != nil {
		t.Fatal(err)
	}
	bfs, _ := st.FS(ctx, "ns/big")
	f, err := bfs.Open("axe_core_audit.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("read back %d bytes (%v), want the %d sent", len(got), err, len(big))
	}
	sk := f.(io.ReadSeeker)
	if _, err := sk.Seek(30<<20, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	part := make([]byte, 1000)
	if _, err := io.ReadFull(sk, part); err != nil || !bytes.Equal(part, big[30<<20:30<<20+1000]) {
		t.Errorf("after a seek: %v, or other bytes", err)
	}
}

// Deleting a scan removes its keys and no one else's.
func deleteScan(t *testing.T, srv *seaweedfs.Server, st *objectstore.Store) {
	ctx := context.Background()
	if _, err := st.Upload(ctx, realResults, "ns/scan-del", objectstore.UploadRetry); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Upload(ctx, realResults, "ns/scan-del2", objectstore.UploadRetry); err != nil {
		t.Fatal(err)
	}
	n, err := st.Delete(ctx, "ns/scan-del")
	if err != nil || n < 10 {
		t.Fatalf("deleted %d (%v)", n, err)
	}
	count := func(prefix string) int {
		k := 0
		for oi := range srv.Client(t, srv.Admin).ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
			if oi.Err != nil {
				t.Fatal(oi.Err)
			}
			k++
		}
		return k
	}
	if left := count("cwac/test/ns/scan-del/"); left != 0 {
		t.Errorf("%d keys left of the deleted scan", left)
	}
	if kept := count("cwac/test/ns/scan-del2/"); kept != n {
		t.Errorf("the other scan has %d keys, want its %d", kept, n)
	}
	if again, err := st.Delete(ctx, "ns/scan-del"); err != nil || again != 0 {
		t.Errorf("deleting again: %d, %v", again, err)
	}
}

// Each failure is said by its cause, and an upload that failed leaves the
// local files where they were.
func failures(t *testing.T, srv *seaweedfs.Server) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		store func() *objectstore.Store
		want  objectstore.Cause
	}{
		"unreachable": {func() *objectstore.Store {
			return storeFor(t, srv, srv.Admin, func(c *objectstore.Config) { c.Endpoint = "http://" + freeport.Refused(t) })
		}, objectstore.CauseUnreachable},
		"wrong secret": {func() *objectstore.Store {
			return storeFor(t, srv, seaweedfs.Account{AccessKey: srv.Admin.AccessKey, SecretKey: "not-the-secret"}, nil)
		}, objectstore.CauseCredentials},
		"unknown key": {func() *objectstore.Store {
			return storeFor(t, srv, seaweedfs.Account{AccessKey: "nobody", SecretKey: "nothing"}, nil)
		}, objectstore.CauseCredentials},
		// With a region named, the check's first request is the bucket's
		// HEAD, whose 403 says nothing of why.
		"wrong secret, region named": {func() *objectstore.Store {
			return storeFor(t, srv, seaweedfs.Account{AccessKey: srv.Admin.AccessKey, SecretKey: "not-the-secret"},
				func(c *objectstore.Config) { c.Region = "us-east-1" })
		}, objectstore.CauseCredentials},
		"unknown key, region named": {func() *objectstore.Store {
			return storeFor(t, srv, seaweedfs.Account{AccessKey: "nobody", SecretKey: "nothing"}, func(c *objectstore.Config) { c.Region = "us-east-1" })
		}, objectstore.CauseCredentials},
		"read-only account": {func() *objectstore.Store { return storeFor(t, srv, srv.Reader, nil) }, objectstore.CauseDenied},
		// SeaweedFS answers a write to a bucket over its quota as it
		// answers one the credentials may not make.
		"full bucket": {func() *objectstore.Store {
			srv.MakeBucket(t, "full")
			srv.Fill(t, "full")
			return storeFor(t, srv, srv.Admin, func(c *objectstore.Config) { c.Bucket = "full" })
		}, objectstore.CauseDenied},
		"no such bucket": {func() *objectstore.Store {
			return storeFor(t, srv, srv.Admin, func(c *objectstore.Config) { c.Bucket = "no-such-bucket" })
		}, objectstore.CauseNoBucket},
	} {
		t.Run(name, func(t *testing.T) {
			st := tc.store()
			start := time.Now()
			_, err := st.Upload(ctx, realResults, "ns/failing", quick)
			if got := objectstore.CauseOf(err); got != tc.want {
				t.Fatalf("upload: cause %q (%v), want %q", got, err, tc.want)
			}
			t.Logf("upload: %v (%s)", err, time.Since(start).Round(time.Millisecond))
			if tc.want == objectstore.CauseDenied && !strings.Contains(err.Error(), "read-only or over its quota") {
				t.Errorf("a refused write does not say what it may mean: %v", err)
			}
			// The bucket's HEAD, all Check asks, is allowed to both.
			if name != "read-only account" && name != "full bucket" {
				if err := st.Check(ctx); objectstore.CauseOf(err) != tc.want {
					t.Errorf("check: %v, want cause %q", err, tc.want)
				}
			}
			if _, err := os.Stat(filepath.Join(realResults, "2026-11-21_23-18-23_real-scan-1", "axe_core_audit.csv")); err != nil {
				t.Errorf("the local results are gone: %v", err)
			}
		})
	}
	// The read-only account reads what is there.
	reader := storeFor(t, srv, srv.Reader, nil)
	bfs, _ := reader.FS(ctx, "ns/scan-a")
	if _, err := fs.ReadDir(bfs, "."); err != nil {
		t.Errorf("the reader lists: %v", err)
	}
}

// cutProxy forwards loopback connections to target, cutting the first
// cuts of them after 64 KiB of the request.
func cutProxy(t *testing.T, target string, cuts int32) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	var cut atomic.Int32
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer func() { _ = in.Close() }()
				out, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer func() { _ = out.Close() }()
				go func() { _, _ = io.Copy(in, out) }()
				if cut.Add(1) <= cuts {
					_, _ = io.CopyN(out, in, 64<<10)
					return
				}
				_, _ = io.Copy(out, in)
			}()
		}
	}()
	return ln.Addr().String()
}

// An upload cut off is tried again and confirmed; cut off every time, it
// is said as a transfer cut off.
func cutOffThenRetried(t *testing.T, srv *seaweedfs.Server) {
	ctx := context.Background()
	dir := t.TempDir()
	big := make([]byte, 1<<20)
	_, _ = rand.Read(big)
	if err := os.WriteFile(filepath.Join(dir, "axe_core_audit.csv"), big, 0o600); err != nil {
		t.Fatal(err)
	}
	target := strings.TrimPrefix(srv.Endpoint, "http://")
	once := storeFor(t, srv, srv.Admin, func(c *objectstore.Config) { c.Endpoint = "http://" + cutProxy(t, target, 1) })
	if _, err := once.Upload(ctx, dir, "ns/cut", quick); err != nil {
		t.Fatalf("an upload cut off once: %v", err)
	}
	bfs, _ := once.FS(ctx, "ns/cut")
	if got, err := fs.ReadFile(bfs, "axe_core_audit.csv"); err != nil || !bytes.Equal(got, big) {
		t.Errorf("read back %d bytes (%v)", len(got), err)
	}
	always := storeFor(t, srv, srv.Admin, func(c *objectstore.Config) { c.Endpoint = "http://" + cutProxy(t, target, 1<<30) })
	_, err := always.Upload(ctx, dir, "ns/cut-always", quick)
	if got := objectstore.CauseOf(err); got != objectstore.CauseCutOff {
		t.Errorf("an upload always cut off: %v (cause %q)", err, got)
	}
	t.Logf("always cut off: %v", err)
}

// A directory skipped is not uploaded; what is downloaded is what was
// uploaded, byte for byte; a key that is no safe name is refused.
func downloadAndSkip(t *testing.T, srv *seaweedfs.Server, st *objectstore.Store) {
	ctx := context.Background()
	up, err := st.Upload(ctx, realResults, "ns/scan-dl", objectstore.UploadRetry, "failures")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "fetched")
	got, err := st.Download(ctx, "ns/scan-dl", dir)
	if err != nil {
		t.Fatal(err)
	}
	if got != up {
		t.Errorf("downloaded %+v, uploaded %+v", got, up)
	}
	if _, err := os.Stat(filepath.Join(dir, "failures")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the skipped directory: %v", err)
	}
	_ = filepath.WalkDir(realResults, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(realResults, p)
		if strings.HasPrefix(rel, "failures") {
			return nil
		}
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: %d bytes downloaded (%v), want %d", rel, len(b), err, len(a))
		}
		return nil
	})
	if n, err := st.Download(ctx, "ns/nothing-here", filepath.Join(t.TempDir(), "empty")); err != nil || n.Files != 0 {
		t.Errorf("nothing to download: %+v, %v", n, err)
	}
	odd := "cwac/test/ns/scan-odd/a b.csv"
	if _, err := srv.Client(t, srv.Admin).PutObject(ctx, bucket, odd, strings.NewReader("x"), 1, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Download(ctx, "ns/scan-odd", t.TempDir()); err == nil || !strings.Contains(err.Error(), "unsafe segment") {
		t.Errorf("a key with an unsafe name: %v", err)
	}
}

// A grant stores a scan's results under its prefix and nowhere else, until
// it expires, and fetches its baseline's files, without credentials.
func grant(t *testing.T, srv *seaweedfs.Server, st *objectstore.Store) {
	ctx := context.Background()
	const cwacDir = "2026-11-21_23-18-23_real-scan-1"
	if _, err := st.Upload(ctx, realResults, "ns/granted-base", objectstore.UploadRetry); err != nil {
		t.Fatal(err)
	}
	g, err := st.Grant(ctx, "ns/granted", "ns/granted-base/"+cwacDir, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	// What a pod reads from its Secret: the grant as JSON.
	raw, _ := json.Marshal(g)
	var pod objectstore.Grant
	if err := json.Unmarshal(raw, &pod); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), srv.Admin.SecretKey) {
		t.Fatal("the grant carries the secret key")
	}
	up, err := objectstore.UploadGranted(ctx, &pod, realResults, quick)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := st.Upload(ctx, realResults, "ns/granted-check", objectstore.UploadRetry)
	if up != want {
		t.Errorf("uploaded with the grant %+v, with credentials %+v", up, want)
	}
	bfs, _ := st.FS(ctx, "ns/granted")
	local := os.DirFS(realResults)
	_ = fs.WalkDir(local, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		a, _ := fs.ReadFile(local, name)
		b, err := fs.ReadFile(bfs, name)
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: %d bytes stored with the grant (%v), want %d", name, len(b), err, len(a))
		}
		return nil
	})
	// The baseline's top-level files, byte for byte; its subdirectories left out.
	dir := t.TempDir()
	got, err := objectstore.FetchGranted(ctx, &pod, dir)
	if err != nil || got.Files < 10 {
		t.Fatalf("fetched %+v (%v)", got, err)
	}
	entries, _ := os.ReadDir(filepath.Join(realResults, cwacDir))
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		a, _ := os.ReadFile(filepath.Join(realResults, cwacDir, e.Name()))
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("baseline %s: %d bytes (%v), want %d", e.Name(), len(b), err, len(a))
		}
	}
	// Outside its prefix: refused by the service, whatever the pod sends.
	escape := pod
	escape.KeyPrefix = "cwac/test/ns/other/"
	_, err = objectstore.UploadGranted(ctx, &escape, realResults, quick)
	if objectstore.CauseOf(err) != objectstore.CauseDenied {
		t.Errorf("a key outside the grant's prefix: %v, want it denied", err)
	}
	if n := countKeys(t, srv, "cwac/test/ns/other/"); n != 0 {
		t.Errorf("%d keys written outside the grant's prefix", n)
	}
	// Expired: refused.
	short, err := st.Grant(ctx, "ns/granted-short", "", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	_, err = objectstore.UploadGranted(ctx, short, realResults, quick)
	if objectstore.CauseOf(err) != objectstore.CauseDenied {
		t.Errorf("an expired grant: %v, want it denied", err)
	}
	for _, bad := range []func(*objectstore.Grant){
		func(g *objectstore.Grant) { g.KeyPrefix = "../x/" },
		func(g *objectstore.Grant) { g.KeyPrefix = "ns/granted" },
		func(g *objectstore.Grant) { g.Upload.Fields = nil },
		func(g *objectstore.Grant) {
			g.Baseline = []objectstore.GrantFile{{Name: "../summary.json", URL: "http://x"}}
		},
		func(g *objectstore.Grant) { g.Upload.URL = "file:///etc/passwd" },
	} {
		c := pod
		bad(&c)
		if _, err := objectstore.UploadGranted(ctx, &c, realResults, quick); err == nil {
			t.Errorf("a grant changed to %+v was used", c)
		}
	}
}

func countKeys(t *testing.T, srv *seaweedfs.Server, prefix string) int {
	t.Helper()
	n := 0
	for oi := range srv.Client(t, srv.Admin).ListObjects(context.Background(), bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if oi.Err != nil {
			t.Fatal(oi.Err)
		}
		n++
	}
	return n
}
