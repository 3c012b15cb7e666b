package mcpserver

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// TestOriginalErrorTexts: every error the original CWAC MCP server also
// gave starts with its text word for word, in the same case (clients match
// case-sensitively), and says the rest after it. Each row is one way a
// tool reaches one of the texts.
func TestOriginalErrorTexts(t *testing.T) {
	scheme := runtime.NewScheme()
	utilruntime.Must(cwacv1alpha1.AddToScheme(scheme))
	running := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "running"},
		Status: cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseRunning}}
	st := store{client: fake.NewClientBuilder().WithScheme(scheme).WithObjects(running).Build(), namespace: "ns", root: resultsRoot{path: t.TempDir()}}
	ctx := context.Background()
	onlyErr := func(_ any, err error) error { return err }
	results := fstest.MapFS{"axe_core_audit.csv": {Data: []byte("a\n")}}

	tests := []struct {
		name     string
		err      error
		original string
		want     string // the whole message
	}{
		{"cwac_scan without urls or sites", checkScanURLs(nil), textNoURLs,
			"At least one URL is required: set urls or sites"},
		{"cwac_scan with an empty list", checkScanURLs([]string{}), textNoURLs,
			"At least one URL is required: set urls or sites"},
		{"a URL of another scheme", checkScanURLs([]string{"https://ok.example/", "ftp://example.org/"}), textInvalidURL,
			"Invalid URL: ftp://example.org/: only http and https URLs can be scanned"},
		{"a URL with user-info", checkScanURLs([]string{"http://public@example.org/"}), textInvalidURL,
			"Invalid URL: http://public@example.org/: user-info (user@host) is not allowed"},
		{"a URL the CRD's pattern refuses", checkScanURLs([]string{"HTTPS://example.org/"}), textInvalidURL,
			"Invalid URL: HTTPS://example.org/: must be http:// or https:// in lower case and a host, then nothing or a path starting with /"},
		{"an empty URL, quoted", checkScanURLs([]string{""}), textInvalidURL,
			`Invalid URL: "": only http and https URLs can be scanned`},
		{"a URL with white space, quoted", checkScanURLs([]string{"https://example.org/a b"}), textInvalidURL,
			`Invalid URL: "https://example.org/a b": contains white space`},
		{"a scan_id that cannot be a name", onlyErr(st.scan(ctx, &callInfo{}, "../etc/passwd")), textNoScan,
			"No scan found with ID: ../etc/passwd"},
		{"a scan_id no scan has", onlyErr(st.scan(ctx, &callInfo{}, "missing")), textNoScan,
			"No scan found with ID: missing"},
		{"results of a scan no scan has", onlyErr(st.results(ctx, &callInfo{}, "missing")), textNoScan,
			"No scan found with ID: missing"},
		{"results of a directory not on the volume", onlyErr(st.results(ctx, &callInfo{}, "2026-11-21_23-18-23_gone")), textNoScan,
			"No scan found with ID: 2026-11-21_23-18-23_gone"},
		{"results of a running scan", onlyErr(st.results(ctx, &callInfo{}, "running")), textStillRunning,
			"Scan is still running. Check status first."},
		{"an audit type the scan has no CSV of", onlyErr(resultFiles(results, "seo_audit")), textNoAuditFile,
			"No results file for audit type: seo_audit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err == nil {
				t.Fatalf("no error, want one starting with %q", tt.original)
			}
			if got := tt.err.Error(); !strings.HasPrefix(got, tt.original) || got != tt.want {
				t.Errorf("error %q\nwant %q, starting with the original %q", got, tt.want, tt.original)
			}
		})
	}
}

// TestCheckScanURLsAccepts: URLs of the form a scan may name pass, so the
// API server's dry run judges the rest of the scan.
func TestCheckScanURLsAccepts(t *testing.T) {
	if err := checkScanURLs([]string{"https://www.example.govt.nz/", "http://127.0.0.1:8765/a?b=c"}); err != nil {
		t.Errorf("checkScanURLs = %v", err)
	}
}

// TestShownURL: a refused URL is cut to its bound, and quoted where its end
// would otherwise be hidden.
func TestShownURL(t *testing.T) {
	long := "https://example.org/" + strings.Repeat("a", 300)
	for _, tt := range []struct{ url, want string }{
		{"https://example.org/", "https://example.org/"},
		{long[:maxURLShownBytes], long[:maxURLShownBytes]},
		{long[:maxURLShownBytes+1], long[:maxURLShownBytes-len(truncatedMark)] + truncatedMark},
		{"", `""`},
		{"https://example.org/\tx", `"https://example.org/\tx"`},
		{"https://example.org/\x7f", `"https://example.org/\x7f"`},
		{"https://example.org/\xff", `"https://example.org/\xff"`},
		{"https://example.org/é", "https://example.org/é"},
	} {
		if got := shownURL(tt.url); got != tt.want {
			t.Errorf("shownURL(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

// TestNoScanErrorIsFoundThroughWrapping: cwac_compare_scans tells a missing
// baseline from other failures by its type.
func TestNoScanErrorIsFoundThroughWrapping(t *testing.T) {
	err := errors.Join(errors.New("other"), noScanError{"x"})
	if !errors.As(err, new(noScanError)) {
		t.Error("noScanError not found in a joined error")
	}
}
