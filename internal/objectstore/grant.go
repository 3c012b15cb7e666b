package objectstore

import (
	"github.com/a11y-dev/cwac-operator/internal/resultspath"

	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/a11y-dev/cwac-operator/internal/jsonlimit"
)

// A Grant lets a scan pod, which holds no credentials, store its results
// under its scan's keys and fetch the baseline's results it compares with,
// until the grant expires. CWAC's browser visits sites nobody vetted, in
// that pod: with a grant, a browser taken over can write no key outside
// its own scan's and read only its baseline's files, as a pod that mounts
// only its scan's directory of a volume; credentials would open the whole
// bucket to it.
type Grant struct {
	// Upload is S3's browser-based upload form: a POST of these fields and
	// one file to URL stores it under any key starting with KeyPrefix.
	Upload GrantForm `json:"upload"`
	// KeyPrefix is the scan's directory in the bucket, ending in '/'.
	KeyPrefix string `json:"keyPrefix"`
	// Expires is when the form and the fetches stop working.
	Expires time.Time `json:"expires"`
	// CAPEM is the endpoint's private certificate authorities ("" for the
	// system's).
	CAPEM string `json:"caPEM,omitempty"`
	// Baseline are the baseline's result files, each fetched by its URL.
	Baseline []GrantFile `json:"baseline,omitempty"`
}

// GrantForm is a signed POST policy.
type GrantForm struct {
	URL    string            `json:"url"`
	Fields map[string]string `json:"fields"`
}

// GrantFile is one file to fetch: its name under the fetched directory, a
// presigned URL and its size.
type GrantFile struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	Size int64  `json:"size"`
}

// Bounds of a grant: S3's limit of one POSTed object, and the baseline's
// files (a CWAC results directory holds a few dozen; its screenshots,
// which the comparison does not read, are left out).
const (
	maxPostBytes       = 5 << 30
	MaxGrantFiles      = 200
	MaxGrantExpiry     = 7 * 24 * time.Hour // SigV4's longest presigned lifetime
	grantSuccessStatus = "201"
)

// Grant signs a grant for the scan directory rel, valid for expiry (at
// most MaxGrantExpiry), with the top-level files of the baseline's results
// directory baseline ("" for none) to fetch.
func (s *Store) Grant(ctx context.Context, rel, baseline string, expiry time.Duration) (*Grant, error) {
	if err := resultspath.Check(rel); err != nil {
		return nil, fmt.Errorf("results bucket: %v", err)
	}
	if expiry <= 0 || expiry > MaxGrantExpiry {
		return nil, fmt.Errorf("results bucket: a grant lasts more than nothing and at most %s, not %s", MaxGrantExpiry, expiry)
	}
	g := &Grant{KeyPrefix: s.key(rel) + "/", Expires: time.Now().Add(expiry).UTC().Truncate(time.Second), CAPEM: s.caPEM}
	p := minio.NewPostPolicy()
	for _, err := range []error{
		p.SetBucket(s.bucket), p.SetKeyStartsWith(g.KeyPrefix), p.SetExpires(g.Expires),
		p.SetContentLengthRange(0, maxPostBytes), p.SetSuccessStatusAction(grantSuccessStatus),
	} {
		if err != nil {
			return nil, fmt.Errorf("results bucket: the upload policy: %v", err)
		}
	}
	u, fields, err := s.client.PresignedPostPolicy(ctx, p)
	if err != nil {
		return nil, fail(opGrant, g.KeyPrefix, err)
	}
	g.Upload = GrantForm{URL: u.String(), Fields: fields}
	if baseline != "" {
		if g.Baseline, err = s.presignDir(ctx, baseline, expiry); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// presignDir signs a GET for each top-level file under rel.
func (s *Store) presignDir(ctx context.Context, rel string, expiry time.Duration) ([]GrantFile, error) {
	if err := resultspath.Check(rel); err != nil {
		return nil, fmt.Errorf("results bucket: baseline: %v", err)
	}
	prefix := s.key(rel) + "/"
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var out []GrantFile
	for oi := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: prefix}) {
		if oi.Err != nil {
			return nil, fail(opList, prefix, oi.Err)
		}
		name := strings.TrimPrefix(oi.Key, prefix)
		if strings.HasSuffix(name, "/") || resultspath.Check(name) != nil {
			continue // a subdirectory (screenshots), or a key no file is named by
		}
		if len(out) == MaxGrantFiles {
			return nil, fmt.Errorf("results bucket: the baseline %s has more than %d files", rel, MaxGrantFiles)
		}
		u, err := s.client.PresignedGetObject(ctx, s.bucket, oi.Key, expiry, nil)
		if err != nil {
			return nil, fail(opGrant, oi.Key, err)
		}
		out = append(out, GrantFile{Name: path.Base(name), URL: u.String(), Size: oi.Size})
	}
	return out, nil
}

// Check refuses a grant that cannot be used as it is: no form, a key
// prefix that is not a scan's directory, a file name that is not a plain
// name, too many files. What a scan pod reads from its Secret is checked
// here before anything is sent.
func (g *Grant) Check() error {
	switch {
	case g.Upload.URL == "" || len(g.Upload.Fields) == 0:
		return fmt.Errorf("results grant: no upload form")
	case !strings.HasSuffix(g.KeyPrefix, "/") || resultspath.Check(strings.TrimSuffix(g.KeyPrefix, "/")) != nil:
		return fmt.Errorf("results grant: key prefix %q is not a directory's", g.KeyPrefix)
	case len(g.Baseline) > MaxGrantFiles:
		return fmt.Errorf("results grant: %d baseline files, more than %d", len(g.Baseline), MaxGrantFiles)
	case !strings.HasPrefix(g.Upload.URL, "https://") && !strings.HasPrefix(g.Upload.URL, "http://"):
		return fmt.Errorf("results grant: the upload URL is not http(s)")
	}
	for _, f := range g.Baseline {
		if !resultspath.SafeName(f.Name) || f.Size < 0 || f.URL == "" {
			return fmt.Errorf("results grant: baseline file %q cannot be fetched as it is", f.Name)
		}
	}
	return nil
}

// ReadGrant reads a grant from its file (a Secret's, at most maxBytes),
// bounded by what it decodes to (jsonlimit: a form of a dozen fields and at
// most MaxGrantFiles baseline files of three values each), and checks it.
func ReadGrant(name string, maxBytes int64) (*Grant, error) {
	data, err := readBounded(name, maxBytes)
	if err != nil {
		return nil, fmt.Errorf("the results grant: %w", err)
	}
	limits := jsonlimit.Limits{MaxDepth: 4, MaxValues: 16 * (MaxGrantFiles + 16), MaxString: 16 << 10, MaxDecoded: 2 * maxBytes}
	if err := jsonlimit.Check(data, limits); err != nil {
		return nil, fmt.Errorf("the results grant %s: %w", name, err)
	}
	var g Grant
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("the results grant %s: %w", name, err)
	}
	if err := g.Check(); err != nil {
		return nil, err
	}
	return &g, nil
}

// client is the HTTP client a grant is used with: its CA, no redirects
// followed (a signed URL answers itself).
func (g *Grant) client() (*http.Client, error) {
	t, err := newTransport(strings.HasPrefix(g.Upload.URL, "https://"), []byte(g.CAPEM))
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: t, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, nil
}
