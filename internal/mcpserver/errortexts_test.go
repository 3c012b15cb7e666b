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
	st := scanAccess{client: fake.NewClientBuilder().WithScheme(scheme).WithObjects(running).Build(), namespace: "ns", tree: volumeTree{path: t.TempDir()}}
	ctx := context.Background()
	onlyErr := func(_ any, err error) error { return err }
	results := fstest.MapFS{"axe_core_audit.csv": {Data: []byte("a\n")}}

	tests := []struct {
		name     string
		err      error
		original string
		want     string // the whole message
	}{
		{"cwac_scan without urls or sites", checkScanURLs(ScanInput{}), textNoURLs,
			"At least one URL is required"},
		{"cwac_scan with an empty list", checkScanURLs(ScanInput{URLs: []string{}, Sites: []SiteArg{}}), textNoURLs,
			"At least one URL is required"},
		{"a URL of another scheme", checkScanURLs(ScanInput{URLs: []string{"https://ok.example/", "ftp://example.org/"}}), textInvalidURL,
			"Invalid URL: ftp://example.org/: only http and https URLs can be scanned"},
		{"a URL with user-info", checkScanURLs(ScanInput{URLs: []string{"http://public@example.org/"}}), textInvalidURL,
			"Invalid URL: http://public@example.org/: user-info (user@host) is not allowed"},
		{"a URL the CRD's pattern refuses", checkScanURLs(ScanInput{URLs: []string{"HTTPS://example.org/"}}), textInvalidURL,
			"Invalid URL: HTTPS://example.org/: must be http:// or https:// in lower case and a host, then nothing or a path starting with /"},
		{"a site's URL", checkScanURLs(ScanInput{URLs: []string{"https://ok.example/"}, Sites: []SiteArg{{URL: "file:///etc/passwd"}}}), textInvalidURL,
			"Invalid URL: file:///etc/passwd: only http and https URLs can be scanned"},
		{"a long URL, cut", checkScanURLs(ScanInput{URLs: []string{"ftp://" + strings.Repeat("a", 300)}}), textInvalidURL,
			"Invalid URL: ftp://" + strings.Repeat("a", 200-len("ftp://")-len("…")) + "…: only http and https URLs can be scanned"},
		{"a URL with white space, quoted", checkScanURLs(ScanInput{URLs: []string{"https://example.org/a b"}}), textInvalidURL,
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
	in := ScanInput{URLs: []string{"https://www.example.govt.nz/", "http://127.0.0.1:8765/a?b=c"}, Sites: []SiteArg{{URL: "https://b.example/"}}}
	if err := checkScanURLs(in); err != nil {
		t.Errorf("checkScanURLs = %v", err)
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
