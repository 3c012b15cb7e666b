package objectstore

import (
	"flag"
	"slices"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	ok := Config{Endpoint: "https://s3.eu-west-1.amazonaws.com", Bucket: "cwac-results"}
	if err := ok.Validate(); err != nil {
		t.Fatalf("a valid configuration: %v", err)
	}
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("no bucket at all is valid (results on the claim): %v", err)
	}
	for name, tc := range map[string]struct {
		mut  func(*Config)
		want string
	}{
		"no bucket":          {func(c *Config) { c.Bucket = "" }, "bucket's name is not set"},
		"bucket upper case":  {func(c *Config) { c.Bucket = "CWAC" }, `"CWAC"`},
		"bucket too short":   {func(c *Config) { c.Bucket = "ab" }, `"ab"`},
		"no endpoint":        {func(c *Config) { c.Endpoint = "" }, "endpoint is not set"},
		"ftp":                {func(c *Config) { c.Endpoint = "ftp://s3.example" }, "http:// or https://"},
		"no scheme":          {func(c *Config) { c.Endpoint = "s3.example.com" }, "http:// or https://"},
		"path":               {func(c *Config) { c.Endpoint = "https://s3.example.com/bucket" }, "scheme and host only"},
		"query":              {func(c *Config) { c.Endpoint = "https://s3.example.com?x=1" }, "scheme and host only"},
		"user":               {func(c *Config) { c.Endpoint = "https://key:secret@s3.example.com" }, "scheme and host only"},
		"bad port":           {func(c *Config) { c.Endpoint = "https://s3.example.com:99999" }, "bad port"},
		"no host":            {func(c *Config) { c.Endpoint = "https://:9000" }, "no host"},
		"prefix dot dot":     {func(c *Config) { c.Prefix = "a/../b" }, `segment ".."`},
		"prefix leading /":   {func(c *Config) { c.Prefix = "/a" }, `segment ""`},
		"prefix trailing /":  {func(c *Config) { c.Prefix = "a/" }, `segment ""`},
		"prefix space":       {func(c *Config) { c.Prefix = "a b" }, `segment "a b"`},
		"prefix too long":    {func(c *Config) { c.Prefix = strings.Repeat("a/", 200) + "a" }, "longer than 256"},
		"region with slash":  {func(c *Config) { c.Region = "eu/west" }, "region"},
		"only a prefix set":  {func(c *Config) { *c = Config{Prefix: "x"} }, "bucket's name is not set"},
		"only path style":    {func(c *Config) { *c = Config{PathStyle: true, Bucket: "cwac"} }, "endpoint is not set"},
		"backslash segment":  {func(c *Config) { c.Prefix = `a\b` }, "segment"},
		"prefix single dot":  {func(c *Config) { c.Prefix = "a/./b" }, `segment "."`},
		"endpoint fragment":  {func(c *Config) { c.Endpoint = "https://s3.example.com#x" }, "scheme and host only"},
		"endpoint not a url": {func(c *Config) { c.Endpoint = "https://[::1" }, "endpoint"},
	} {
		c := ok
		tc.mut(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tc.want)
		}
		if _, err := Open(c); err == nil {
			t.Errorf("%s: Open accepted it", name)
		}
	}
	for _, good := range []Config{
		{Endpoint: "http://127.0.0.1:8333", Bucket: "results", PathStyle: true, Prefix: "cwac/prod", Region: "us-east-1"},
		{Endpoint: "https://minio.storage.svc:9000/", Bucket: "a.b-c"},
	} {
		if err := good.Validate(); err != nil {
			t.Errorf("%+v: %v", good, err)
		}
	}
}

// Args renders what Bind reads back, so the operator passes a scan pod the
// configuration it was given.
func TestArgsRoundTrip(t *testing.T) {
	for _, c := range []Config{
		{},
		{Endpoint: "https://s3.example.com", Bucket: "cwac"},
		{Endpoint: "http://127.0.0.1:8333", Region: "r1", Bucket: "cwac", Prefix: "p/q", PathStyle: true, CAFile: "/ca/ca.crt", CredentialsDir: "/creds"},
	} {
		var got Config
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		got.Bind(fs)
		if err := fs.Parse(c.Args()); err != nil {
			t.Fatal(err)
		}
		if got != c {
			t.Errorf("round trip: %+v, want %+v", got, c)
		}
	}
	if args := (Config{}).Args(); args != nil {
		t.Errorf("no bucket: %q, want no flags", args)
	}
}

func TestKeyUnderPrefix(t *testing.T) {
	for _, tc := range []struct{ prefix, rel, want string }{
		{"", "ns/scan", "ns/scan"},
		{"cwac", "ns/scan", "cwac/ns/scan"},
		{"cwac/prod", "ns/scan/f.csv", "cwac/prod/ns/scan/f.csv"},
	} {
		s := &Store{prefix: tc.prefix}
		if got := s.key(tc.rel); got != tc.want {
			t.Errorf("key(%q, %q) = %q, want %q", tc.prefix, tc.rel, got, tc.want)
		}
	}
}

func TestContentType(t *testing.T) {
	for name, want := range map[string]string{
		"a/axe_core_audit.csv": "text/csv; charset=utf-8", "summary.json": "application/json", "results.sarif": "application/json",
		"report.html": "text/html; charset=utf-8", "x.unknownext": "application/octet-stream",
	} {
		if got := contentType(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if !slices.Contains([]string{"application/xml", "text/xml; charset=utf-8"}, contentType("junit.xml")) {
		t.Errorf("junit.xml: %q", contentType("junit.xml"))
	}
}
