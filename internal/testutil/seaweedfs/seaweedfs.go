// Package seaweedfs starts a real S3-compatible server for tests:
// SeaweedFS (master, volume, filer and its S3 gateway in one process),
// built from the Go module proxy by hack/tools.sh (the path in
// $SEAWEEDFS), on free loopback ports, with two accounts — one that may do
// anything and one that may only read — so the results bucket is tested
// against a server that implements S3, not against an imitation of it.
package seaweedfs

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/testutil/freeport"
	"github.com/a11y-dev/cwac-operator/internal/testutil/proc"
	"github.com/a11y-dev/cwac-operator/internal/testutil/testcert"
	"github.com/a11y-dev/cwac-operator/internal/testutil/wait"
)

// Account is an access key and its secret.
type Account struct{ AccessKey, SecretKey string }

// Server is a running SeaweedFS S3 gateway.
type Server struct {
	// Endpoint is its S3 URL (http on 127.0.0.1).
	Endpoint string
	// Admin may do anything; Reader may read and list only.
	Admin, Reader Account
	// CAFile is the PEM certificate the server's TLS is checked against
	// (Start with withTLS; "" otherwise).
	CAFile string
	host   string
	pool   *x509.CertPool
	bin    string
	// master and filer are the addresses its own shell is pointed at.
	master, filer string
}

// Start starts SeaweedFS, stopped when the test ends, its S3 gateway on
// https with a certificate of the test's own when withTLS. It fails the
// test (never skips it) when $SEAWEEDFS is not set, saying how to build it.
func Start(t testing.TB, withTLS bool) *Server {
	t.Helper()
	bin := proc.Binary(t, "SEAWEEDFS", "seaweedfs", "a real S3 server")
	dir := t.TempDir()
	s := &Server{
		Admin:  Account{AccessKey: "cwac-admin-key", SecretKey: "cwac-admin-secret-for-tests-only"},
		Reader: Account{AccessKey: "cwac-reader-key", SecretKey: "cwac-reader-secret-for-tests-only"},
	}
	conf := map[string]any{"identities": []map[string]any{
		{"name": "admin", "credentials": []map[string]string{{"accessKey": s.Admin.AccessKey, "secretKey": s.Admin.SecretKey}},
			"actions": []string{"Admin", "Read", "List", "Tagging", "Write"}},
		{"name": "reader", "credentials": []map[string]string{{"accessKey": s.Reader.AccessKey, "secretKey": s.Reader.SecretKey}},
			"actions": []string{"Read", "List"}},
	}}
	confFile := filepath.Join(dir, "s3.json")
	b, _ := json.Marshal(conf)
	if err := os.WriteFile(confFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	// Nine ports, all different: SeaweedFS binds each of them and stops
	// when any is taken.
	free := freeport.Ports(t, 9)
	port := func() string {
		p := free[0]
		free = free[1:]
		return strconv.Itoa(p)
	}
	s3Port := port()
	masterPort, masterGRPC, filerPort, filerGRPC := port(), port(), port(), port()
	// host:port.grpcPort is how SeaweedFS names a server whose gRPC port
	// is not its port + 10000.
	s.bin, s.master, s.filer = bin, "127.0.0.1:"+masterPort+"."+masterGRPC, "127.0.0.1:"+filerPort+"."+filerGRPC
	s.host = "127.0.0.1:" + s3Port
	s.Endpoint = "http://" + s.host
	var tlsArgs []string
	if withTLS {
		certFile, keyFile, pool := testcert.Loopback(t, dir, "seaweedfs test")
		s.Endpoint, s.CAFile, s.pool = "https://"+s.host, certFile, pool
		tlsArgs = []string{"-s3.cert.file=" + certFile, "-s3.key.file=" + keyFile}
	}
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	// Volumes of 64 MiB, made as they fill (nothing is allocated ahead):
	// up to 64 of them hold the bench's four copies of a 1,000,000-row
	// results directory (2.2 GB) as well as the tests' few megabytes.
	args := make([]string, 0, 24)
	args = append(args,
		"server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir="+data,
		"-master.port="+masterPort, "-master.port.grpc="+masterGRPC, "-master.telemetry=false",
		"-master.volumeSizeLimitMB=64", "-volume.max=64",
		"-volume.port="+port(), "-volume.port.grpc="+port(),
		"-filer", "-filer.port="+filerPort, "-filer.port.grpc="+filerGRPC,
		"-s3", "-s3.port="+s3Port, "-s3.port.grpc="+port(), "-s3.config="+confFile,
	)
	args = append(args, tlsArgs...)
	server := proc.Start(t, "SeaweedFS", dir, bin, args...)
	admin := s.Client(t, s.Admin)
	wait.For(t, "SeaweedFS's S3 gateway to answer", 2*time.Minute, func() (bool, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err := admin.ListBuckets(ctx)
		if ended := server.Ended(); ended != nil {
			t.Fatalf("SeaweedFS did not start: %v (last answer: %v)", ended, err)
		}
		return err == nil, err
	})
	return s
}

// Client is a plain S3 client of the server signed in as a.
func (s *Server) Client(t testing.TB, a Account) *minio.Client {
	t.Helper()
	transport := &http.Transport{Proxy: nil}
	if s.pool != nil {
		transport.TLSClientConfig = &tls.Config{RootCAs: s.pool, MinVersion: tls.VersionTLS12}
	}
	c, err := minio.New(s.host, &minio.Options{
		Creds: credentials.NewStaticV4(a.AccessKey, a.SecretKey, ""), BucketLookup: minio.BucketLookupPath,
		Transport: transport, Secure: s.pool != nil,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// MakeBucket makes a bucket as the admin, waiting until it takes writes.
func (s *Server) MakeBucket(t testing.TB, name string) {
	t.Helper()
	c := s.Client(t, s.Admin)
	if err := c.MakeBucket(context.Background(), name, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("making bucket %s: %v", name, err)
	}
}

// Config is bucket on the server, under prefix, as the results store's
// settings name it, signed in as a: its key and secret in a new directory
// (as a Secret's files are mounted), path-style addressing and the
// region the server answers for. With TLS, set CAFile from the server's.
func (s *Server) Config(t testing.TB, a Account, bucket, prefix string) objectstore.Config {
	t.Helper()
	dir := t.TempDir()
	for name, v := range map[string]string{objectstore.AccessKeyFile: a.AccessKey, objectstore.SecretKeyFile: a.SecretKey + "\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return objectstore.Config{Endpoint: s.Endpoint, Region: "us-east-1", Bucket: bucket, Prefix: prefix, PathStyle: true, CredentialsDir: dir}
}

// Fill makes bucket full the way SeaweedFS does it: a quota of 1 MiB on
// the bucket, 2 MiB stored in it (under "filler"), and the quota enforced
// by SeaweedFS's own shell, which makes a bucket over its quota refuse
// writes. It returns once a write is refused: the bucket's size reaches
// the shell with the volume server's next report to the master.
func (s *Server) Fill(t testing.TB, bucket string) {
	t.Helper()
	admin := s.Client(t, s.Admin)
	filler := make([]byte, 2<<20)
	ctx := context.Background()
	if _, err := admin.PutObject(ctx, bucket, "filler", bytes.NewReader(filler), int64(len(filler)), minio.PutObjectOptions{}); err != nil {
		t.Fatalf("filling bucket %s: %v", bucket, err)
	}
	s.shell(t, "s3.bucket.quota -name="+bucket+" -op=set -sizeMB=1")
	var out string
	wait.For(t, "bucket "+bucket+" to be over its quota and refuse writes", 2*time.Minute, func() (bool, string) {
		out = s.shell(t, "s3.bucket.quota.enforce -apply")
		_, err := admin.PutObject(ctx, bucket, "probe", bytes.NewReader(nil), 0, minio.PutObjectOptions{})
		if err == nil {
			return false, "a write was taken; the shell said: " + out
		}
		return true, ""
	})
}

// shell runs one command in SeaweedFS's shell, failing the test if it
// fails, and returns what it printed.
func (s *Server) shell(t testing.TB, command string) string {
	t.Helper()
	cmd := exec.Command(s.bin, "shell", "-master="+s.master, "-filer="+s.filer)
	cmd.Stdin = strings.NewReader(command + "\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("SeaweedFS shell %q: %v\n%s", command, err, out)
	}
	return string(out)
}
