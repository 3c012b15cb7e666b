// Package objectstore keeps scan results in an S3-compatible bucket: where
// the bucket is and how to sign in to it (Config), each result file copied
// up from the pod and confirmed (Upload), a scan's results read back as an
// fs.FS confined to the scan's keys (FS), deleted with the scan (Delete),
// and every failure said by its cause (Cause). It knows nothing of
// Kubernetes: the runner, the operator and the MCP server build on it.
package objectstore

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/minio/minio-go/v7/pkg/s3utils"
)

// Config says where results are kept in a bucket. The zero value means no
// bucket (results stay on the claim).
type Config struct {
	// Endpoint is the S3 service's URL, scheme and host only:
	// "https://s3.eu-west-1.amazonaws.com", "http://minio.storage:9000".
	Endpoint string
	// Region is the bucket's region ("" lets the service say).
	Region string
	// Bucket is the bucket's name.
	Bucket string
	// Prefix is put before every key ("" for none): segments of letters,
	// digits, '.', '_' and '-' joined by '/'.
	Prefix string
	// PathStyle addresses the bucket in the URL's path rather than as a
	// subdomain (MinIO, SeaweedFS and most services run in a cluster).
	PathStyle bool
	// CAFile is a PEM file of the certificate authorities the endpoint's
	// certificate is checked against, beside the system's ("" for the
	// system's alone).
	CAFile string
	// CredentialsDir holds the files access-key-id and secret-access-key
	// (a Secret mounted as a volume). Empty: the platform's credentials
	// (AWS_* environment variables, a web identity token as workload
	// identity sets up, the node's instance role).
	CredentialsDir string
}

// Files of CredentialsDir: the keys of the Secret the chart mounts there.
const (
	AccessKeyFile = "access-key-id"
	SecretKeyFile = "secret-access-key"
)

// maxPrefixLen bounds Prefix; keys are at most 1,024 bytes in S3.
const maxPrefixLen = 256

var prefixSegment = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// Enabled says whether results are kept in a bucket.
func (c Config) Enabled() bool { return c != Config{} }

// Validate refuses a configuration that cannot work, naming the setting.
func (c Config) Validate() error {
	if !c.Enabled() {
		return nil
	}
	if c.Bucket == "" {
		return errors.New("results bucket: the bucket's name is not set")
	}
	if err := s3utils.CheckValidBucketNameStrict(c.Bucket); err != nil {
		return fmt.Errorf("results bucket %q: %v", c.Bucket, err)
	}
	if _, err := c.endpointURL(); err != nil {
		return err
	}
	if err := checkPrefix(c.Prefix); err != nil {
		return err
	}
	if strings.ContainsAny(c.Region, " /\\") || len(c.Region) > 64 {
		return fmt.Errorf("results bucket region %q: want a region name such as eu-west-1", c.Region)
	}
	return nil
}

// endpointURL parses Endpoint: http or https, a host, nothing else.
func (c Config) endpointURL() (*url.URL, error) {
	u, err := url.Parse(c.Endpoint)
	switch {
	case c.Endpoint == "":
		return nil, errors.New("results bucket: the endpoint is not set (e.g. https://s3.eu-west-1.amazonaws.com)")
	case err != nil:
		return nil, fmt.Errorf("results bucket endpoint %q: %v", c.Endpoint, err)
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, fmt.Errorf("results bucket endpoint %q: want an http:// or https:// URL", c.Endpoint)
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("results bucket endpoint %q: no host", c.Endpoint)
	case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("results bucket endpoint %q: want the scheme and host only (the bucket and prefix are settings of their own)", c.Endpoint)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("results bucket endpoint %q: bad port", c.Endpoint)
		}
	}
	return u, nil
}

// checkPrefix accepts "" or safe segments joined by '/'.
func checkPrefix(p string) error {
	if p == "" {
		return nil
	}
	if len(p) > maxPrefixLen {
		return fmt.Errorf("results bucket prefix: longer than %d bytes", maxPrefixLen)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." || !prefixSegment.MatchString(seg) {
			return fmt.Errorf("results bucket prefix %q: segment %q is not letters, digits, '.', '_' or '-'", p, seg)
		}
	}
	return nil
}

// Flag names, one home for the binaries that take them and the pods that
// pass them on (Args).
const (
	FlagEndpoint       = "results-bucket-endpoint"
	FlagRegion         = "results-bucket-region"
	FlagBucket         = "results-bucket"
	FlagPrefix         = "results-bucket-prefix"
	FlagPathStyle      = "results-bucket-path-style"
	FlagCAFile         = "results-bucket-ca-file"
	FlagCredentialsDir = "results-bucket-credentials-dir"
)

// Bind registers the configuration's flags on fs.
func (c *Config) Bind(fs *flag.FlagSet) {
	fs.StringVar(&c.Endpoint, FlagEndpoint, "", "keep results in an S3-compatible bucket at this URL (scheme and host); empty: on the results volume")
	fs.StringVar(&c.Region, FlagRegion, "", "the results bucket's region")
	fs.StringVar(&c.Bucket, FlagBucket, "", "the results bucket's name")
	fs.StringVar(&c.Prefix, FlagPrefix, "", "put this before every key in the results bucket")
	fs.BoolVar(&c.PathStyle, FlagPathStyle, false, "address the results bucket in the URL's path (MinIO, SeaweedFS), not as a subdomain")
	fs.StringVar(&c.CAFile, FlagCAFile, "", "PEM certificate authorities for the results bucket's endpoint, beside the system's")
	fs.StringVar(&c.CredentialsDir, FlagCredentialsDir, "",
		"directory with the files "+AccessKeyFile+" and "+SecretKeyFile+"; empty: the platform's credentials (workload identity)")
}

// Args renders the configuration as the flags Bind reads (none when no
// bucket is configured).
func (c Config) Args() []string {
	if !c.Enabled() {
		return nil
	}
	args := []string{"--" + FlagEndpoint + "=" + c.Endpoint, "--" + FlagBucket + "=" + c.Bucket}
	for _, kv := range [][2]string{{FlagRegion, c.Region}, {FlagPrefix, c.Prefix}, {FlagCAFile, c.CAFile}, {FlagCredentialsDir, c.CredentialsDir}} {
		if kv[1] != "" {
			args = append(args, "--"+kv[0]+"="+kv[1])
		}
	}
	if c.PathStyle {
		args = append(args, "--"+FlagPathStyle)
	}
	return args
}
