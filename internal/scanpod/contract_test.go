package scanpod

import (
	"flag"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// What the Job builder renders, the runner must parse back unchanged.
func TestRunnerFlagsRoundTrip(t *testing.T) {
	tests := []RunnerFlags{
		DefaultRunnerFlags(),
		{CWACDir: "/opt/cwac", ConfigMapDir: "/c", ResultsDir: "/r", WorkDir: "/w", TerminationLog: "/t", Python: "/opt/cwac/.venv/bin/python"},
		{
			CWACDir: "/cwac", ConfigMapDir: "/scan", ResultsDir: "/results", WorkDir: "/tmp/w", TerminationLog: "/t",
			Egress: urlpolicy.Lists{AllowDomains: "govt.nz", DenyDomains: "bad.govt.nz", DenyCIDRs: "10.96.0.0/12,10.244.0.0/16", AllowCIDRs: "10.244.0.0/24"},
		},
		{
			CWACDir: "/cwac", ConfigMapDir: "/scan", ResultsDir: "/results", WorkDir: "/tmp/w", TerminationLog: "/t",
			BaselineDir: "/baseline", BaselineName: "nightly-1",
			ScanName: "nightly-2", ScanNamespace: "agency-a", CWACImage: "ghcr.io/govtnz/cwac@sha256:" + strings.Repeat("0", 64),
			Thresholds: ThresholdList{{Name: "maxTotalIssues", Value: "10"}, {Name: "maxIssuesByImpact.critical", Value: "0"}, {Name: "requireComplete", Value: "true"}},
		},
		{
			CWACDir: "/cwac", ConfigMapDir: "/scan", ResultsDir: "/results", WorkDir: "/tmp/w", TerminationLog: "/t",
			BaselineDir: "/tmp/baseline", BaselineName: "nightly-1",
			Bucket: objectstore.Config{
				Endpoint: "https://s3.example", Bucket: "cwac", Prefix: "p", PathStyle: true, Region: "r", CAFile: "/ca/ca.crt", CredentialsDir: "/creds",
			},
			ResultsKey: "agency-a/nightly-2", BaselineKey: "agency-a/nightly-1/2026-11-21_23-18-23_nightly", Merge: true, Shards: 3,
		},
		{
			CWACDir: "/cwac", ConfigMapDir: "/scan", ResultsDir: "/results", WorkDir: "/tmp/w", TerminationLog: "/t",
			BaselineDir: "/tmp/baseline", BaselineName: "nightly-1", ResultsGrant: "/results-grant/grant.json",
		},
	}
	for _, want := range tests {
		fs := flag.NewFlagSet("runner", flag.ContinueOnError)
		var got RunnerFlags
		got.Bind(fs)
		if err := fs.Parse(want.Args()); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
}

func TestRunnerPath(t *testing.T) {
	if RunnerPath != "/runner/cwac-runner" {
		t.Errorf("RunnerPath = %q", RunnerPath)
	}
}

// What describes the scan to its CI reports is bounded, and what passes a
// bound or is malformed is refused naming the flag and what was wrong.
func TestRunnerFlagsRefuseBadReportFlags(t *testing.T) {
	tooMany := make([]string, 0, MaxThresholds+1)
	for i := range MaxThresholds + 1 {
		tooMany = append(tooMany, "--threshold=t"+strconv.Itoa(i)+"=1")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--scan-name=" + strings.Repeat("s", MaxScanNameBytes+1)}, "-scan-name: 254 bytes, more than the 253 allowed"},
		{[]string{"--cwac-image=" + strings.Repeat("i", MaxCWACImageBytes+1)}, "-cwac-image: 513 bytes, more than the 512 allowed"},
		{[]string{"--scan-namespace=" + strings.Repeat("n", MaxScanNamespaceBytes+1)}, "-scan-namespace: 64 bytes, more than the 63 allowed"},
		{[]string{"--threshold=maxTotalIssues"}, `threshold "maxTotalIssues": want name=value`},
		{[]string{"--threshold==1"}, `threshold name "": want at most 64 bytes`},
		{[]string{"--threshold=max total=1"}, `threshold name "max total"`},
		{[]string{"--threshold=maxIssuesByImpact..critical=1"}, `threshold name "maxIssuesByImpact..critical"`},
		{[]string{"--threshold=" + strings.Repeat("n", MaxThresholdNameBytes+1) + "=1"}, "threshold name"},
		{[]string{"--threshold=maxTotalIssues=1", "--threshold=maxTotalIssues=2"}, "threshold maxTotalIssues given twice"},
		{[]string{"--threshold=maxTotalIssues="}, "threshold maxTotalIssues: its value must be 1 to 32 bytes, not 0"},
		{[]string{"--threshold=maxTotalIssues=" + strings.Repeat("9", MaxThresholdValueBytes+1)}, "its value must be 1 to 32 bytes, not 33"},
		{[]string{"--threshold=maxTotalIssues=1 0"}, `threshold maxTotalIssues: its value "1 0" has a character other than printable ASCII`},
		{[]string{"--threshold=maxTotalIssues=\u00e9"}, "other than printable ASCII"},
		{tooMany, "more than 16 thresholds"},
	} {
		fs := flag.NewFlagSet("runner", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var got RunnerFlags
		got.Bind(fs)
		err := fs.Parse(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.80q: error %v, want %q", tc.args, err, tc.want)
		}
	}

	// At the bounds, each is taken.
	var at RunnerFlags
	fs := flag.NewFlagSet("runner", flag.ContinueOnError)
	at.Bind(fs)
	args := append(slices.Clone(tooMany[:MaxThresholds-1]),
		"--threshold="+strings.Repeat("n", MaxThresholdNameBytes)+"="+strings.Repeat("9", MaxThresholdValueBytes),
		"--scan-name="+strings.Repeat("s", MaxScanNameBytes), "--cwac-image="+strings.Repeat("i", MaxCWACImageBytes),
		"--scan-namespace="+strings.Repeat("n", MaxScanNamespaceBytes))
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if len(at.Thresholds) != MaxThresholds || len(at.ScanName) != MaxScanNameBytes || len(at.CWACImage) != MaxCWACImageBytes ||
		len(at.ScanNamespace) != MaxScanNamespaceBytes {
		t.Errorf("at the bounds: %d thresholds, scan name %d bytes, image %d bytes, namespace %d bytes",
			len(at.Thresholds), len(at.ScanName), len(at.CWACImage), len(at.ScanNamespace))
	}
}
