package runner

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// validGrant is a grant as the operator writes one (its URLs lead nowhere).
func validGrant(expires time.Time) objectstore.Grant {
	return objectstore.Grant{
		Upload:    objectstore.GrantForm{URL: "http://127.0.0.1:1/cwac-results", Fields: map[string]string{"policy": "p", "key": "k/"}},
		KeyPrefix: "results/ns/scan/", Expires: expires,
	}
}

func writeGrantFile(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	must(t, err)
	name := filepath.Join(t.TempDir(), scanpod.GrantFile)
	must(t, os.WriteFile(name, data, 0o600))
	return name
}

// The pod's way into the bucket: a grant for a pod that runs CWAC,
// credentials for the merge pod alone, and nothing half given.
func TestBucketWayOf(t *testing.T) {
	grant := writeGrantFile(t, validGrant(time.Now().Add(time.Hour)))
	creds := objectstore.Config{Endpoint: "http://127.0.0.1:1", Bucket: "cwac-results"}
	for name, tc := range map[string]struct {
		cfg  scanpod.RunnerFlags
		want string // "" for a way in
	}{
		"a grant":                   {scanpod.RunnerFlags{ResultsGrant: grant}, ""},
		"credentials for the merge": {scanpod.RunnerFlags{Bucket: creds, Merge: true, ResultsKey: "ns/scan"}, ""},
		"both":                      {scanpod.RunnerFlags{ResultsGrant: grant, Bucket: creds, Merge: true}, "both a results grant and bucket credentials"},
		"credentials in a CWAC pod": {scanpod.RunnerFlags{Bucket: creds, ResultsKey: "ns/scan"}, "bucket credentials are for the merge pod"},
		"the merge without its key": {scanpod.RunnerFlags{Bucket: creds, Merge: true}, "--results-key is not set"},
		"credentials that are not": {
			scanpod.RunnerFlags{Bucket: objectstore.Config{Endpoint: "ftp://x", Bucket: "cwac"}, Merge: true, ResultsKey: "ns/scan"},
			"http:// or https://",
		},
		"a grant that is not there": {scanpod.RunnerFlags{ResultsGrant: filepath.Join(t.TempDir(), "none.json")}, "the results grant"},
	} {
		_, err := bucketWayOf(Config{RunnerFlags: tc.cfg})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

// A grant's file is read within the bound of a Secret and checked before
// anything is sent.
func TestReadGrantRefuses(t *testing.T) {
	tooBig := filepath.Join(t.TempDir(), "big.json")
	must(t, os.WriteFile(tooBig, make([]byte, scanpod.MaxGrantBytes+1), 0o600))
	deep := filepath.Join(t.TempDir(), "deep.json")
	must(t, os.WriteFile(deep, []byte(`{"upload":{"fields":{"a":[[[[[1]]]]]}}}`), 0o600))
	notJSON := filepath.Join(t.TempDir(), "x.json")
	must(t, os.WriteFile(notJSON, []byte(`{"upload":`), 0o600))
	escape := validGrant(time.Now().Add(time.Hour))
	escape.KeyPrefix = "results/../other/"
	for name, tc := range map[string]struct{ file, want string }{
		"larger than a Secret": {tooBig, "larger than"},
		"nested too deep":      {deep, "nest deeper than the limit"},
		"not JSON":             {notJSON, "unexpected end"},
		"outside a directory":  {writeGrantFile(t, escape), "is not a directory's"},
		"no form":              {writeGrantFile(t, objectstore.Grant{KeyPrefix: "a/"}), "no upload form"},
	} {
		if _, err := objectstore.ReadGrant(tc.file, scanpod.MaxGrantBytes); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	g, err := objectstore.ReadGrant(writeGrantFile(t, validGrant(time.Now().Add(time.Hour))), scanpod.MaxGrantBytes)
	if err != nil || g.KeyPrefix != "results/ns/scan/" {
		t.Errorf("a valid grant: %+v, %v", g, err)
	}
}

// An expired grant fails the scan before CWAC runs, saying when it expired.
func TestExpiredGrantFailsFirst(t *testing.T) {
	g := validGrant(time.Now().Add(30 * time.Second))
	cfg := Config{RunnerFlags: scanpod.RunnerFlags{ResultsGrant: writeGrantFile(t, g), ResultsDir: t.TempDir(), TerminationLog: filepath.Join(t.TempDir(), "log")},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ran := false
	msg := withBucket(context.Background(), cfg, func(context.Context, Config) scanpod.Report { ran = true; return scanpod.Report{} })
	if ran || msg.Outcome != scanpod.OutcomeResultsNotStored || !strings.Contains(msg.Message, "the results grant expired at") {
		t.Errorf("ran %v; %s: %s", ran, msg.Outcome, msg.Message)
	}
}
