package objectstore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Store is a bucket the results are kept in.
type Store struct {
	client *minio.Client
	bucket string
	prefix string
	caPEM  string // the CA file's authorities, handed on in grants
}

// maxCredentialBytes bounds each credentials file.
const maxCredentialBytes = 4096

// Open checks cfg and makes a client for its bucket. It sends nothing:
// Check does.
func Open(cfg Config) (*Store, error) {
	if !cfg.Enabled() {
		return nil, errors.New("results bucket: not configured")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	u, _ := cfg.endpointURL() // checked by Validate
	creds, err := cfg.credentials()
	if err != nil {
		return nil, err
	}
	transport, caPEM, err := cfg.transport()
	if err != nil {
		return nil, err
	}
	lookup := minio.BucketLookupAuto
	if cfg.PathStyle {
		lookup = minio.BucketLookupPath
	}
	client, err := minio.New(u.Host, &minio.Options{
		Creds: creds, Secure: u.Scheme == "https", Region: cfg.Region,
		BucketLookup: lookup, Transport: transport,
		// The client's own retries of a request (connections refused or
		// reset, 5xx): three, not ten, so a bucket that cannot be reached
		// is said within seconds; Upload tries a whole file again.
		MaxRetries: 3,
	})
	if err != nil {
		return nil, fmt.Errorf("results bucket endpoint %q: %v", cfg.Endpoint, err)
	}
	return &Store{client: client, bucket: cfg.Bucket, prefix: cfg.Prefix, caPEM: string(caPEM)}, nil
}

// credentials reads CredentialsDir's files, or falls back to the platform's.
func (c Config) credentials() (*credentials.Credentials, error) {
	if c.CredentialsDir == "" {
		return credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{},
			&credentials.IAM{Client: &http.Client{Transport: http.DefaultTransport, Timeout: 10 * time.Second}},
		}), nil
	}
	read := func(name string) (string, error) {
		p := filepath.Join(c.CredentialsDir, name)
		b, err := readBounded(p, maxCredentialBytes)
		if err != nil {
			return "", fmt.Errorf("results bucket credentials: %v", err)
		}
		v := strings.TrimSpace(string(b))
		if v == "" {
			return "", fmt.Errorf("results bucket credentials: %s is empty", p)
		}
		return v, nil
	}
	id, err := read(AccessKeyFile)
	if err != nil {
		return nil, err
	}
	secret, err := read(SecretKeyFile)
	if err != nil {
		return nil, err
	}
	return credentials.NewStaticV4(id, secret, ""), nil
}

// transport trusts CAFile's authorities beside the system's, and returns
// them (nil without a CA file).
func (c Config) transport() (http.RoundTripper, []byte, error) {
	var pem []byte
	if c.CAFile != "" {
		var err error
		if pem, err = readBounded(c.CAFile, maxCABytes); err != nil {
			return nil, nil, fmt.Errorf("results bucket CA file: %v", err)
		}
	}
	t, err := newTransport(strings.HasPrefix(c.Endpoint, "https://"), pem)
	if err != nil && c.CAFile != "" {
		err = fmt.Errorf("results bucket CA file %s: %v", c.CAFile, err)
	}
	return t, pem, err
}

// maxCABytes bounds a CA file (a bundle of a few certificates).
const maxCABytes = 1 << 20

// newTransport is the client transport (secure: for an https endpoint),
// trusting pem's authorities beside the system's when pem is not empty.
func newTransport(secure bool, pem []byte) (*http.Transport, error) {
	t, err := minio.DefaultTransport(secure)
	if err != nil {
		return nil, err
	}
	if len(pem) == 0 {
		return t, nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("no PEM certificate in it")
	}
	if t.TLSClientConfig == nil {
		t.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	t.TLSClientConfig.RootCAs = pool
	return t, nil
}

// readBounded reads a small file whole, refusing one larger than limit.
func readBounded(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, limit)
	}
	b := make([]byte, info.Size())
	_, err = io.ReadFull(f, b)
	return b, err
}

// Check asks the service whether the bucket exists and the credentials
// open it.
func (s *Store) Check(ctx context.Context) error {
	ok, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		err = fail(opCheck, "", err)
		if CauseOf(err) == CauseDenied {
			return s.whyDenied(ctx, err)
		}
		return err
	}
	if !ok {
		return &Error{Op: opCheck, Cause: CauseNoBucket, Err: fmt.Errorf("no bucket %q", s.bucket)}
	}
	return nil
}

// whyDenied tells refused credentials from a refused permission after a
// 403 to the bucket's HEAD: that answer has no body, so both read as
// denied (with a region configured, no other request comes first to say
// which). A listing's answer names its error; denied is kept when it
// names no other cause.
func (s *Store) whyDenied(ctx context.Context, denied error) error {
	ctx, cancel := context.WithCancel(ctx) // ends the listing after its first key
	defer cancel()
	oi := <-s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: under(s.prefix), MaxKeys: 1})
	if err := fail(opCheck, "", oi.Err); CauseOf(err) == CauseCredentials {
		return err
	}
	return denied
}

// key is rel's key: the prefix, then rel (already checked by resultspath.Check).
func (s *Store) key(rel string) string {
	if s.prefix == "" {
		return rel
	}
	return s.prefix + "/" + rel
}

// Location is where the store keeps results, for logs and messages: the
// endpoint, the bucket and the prefix (never a credential).
func (s *Store) Location() string {
	loc := s.client.EndpointURL().String() + "/" + s.bucket
	if s.prefix != "" {
		loc += "/" + s.prefix
	}
	return loc
}

// startCheckTimeout bounds the look a binary takes at its bucket as it starts.
const startCheckTimeout = 30 * time.Second

// OpenAtStart opens the bucket cfg configures (nil, nil, nil when none) and
// looks at it once, as a binary does when it starts. A bucket it cannot use
// yet is no reason to stop (it may be down for a moment, and each scan or
// read says so until it can): that look's failure comes back apart, as
// checkErr, for the binary to log; err is a configuration that cannot be
// opened at all.
func OpenAtStart(cfg Config) (st *Store, checkErr, err error) {
	if !cfg.Enabled() {
		return nil, nil, nil
	}
	if st, err = Open(cfg); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startCheckTimeout)
	defer cancel()
	return st, st.Check(ctx), nil
}
