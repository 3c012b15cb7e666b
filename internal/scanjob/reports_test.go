package scanjob

import (
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// The runner of every pod that writes CI reports (one pod's scan, each
// shard, the merge) parses back the CwacScan's name, its thresholds and the
// CWAC image; an image longer than the runner takes is left out, and the
// pod still starts.
func TestPodsDescribeTheScanToItsReports(t *testing.T) {
	sharded := sampleScan()
	sharded.Spec.Shards = 2
	longDefault := opts
	longDefault.DefaultImage = "registry.example/" + strings.Repeat("c", scanpod.MaxCWACImageBytes)
	ownImage := sampleScan()
	ownImage.Spec.Image = "registry.example/cwac:2.1"
	wantThresholds := scanpod.ThresholdList{{Name: "maxTotalIssues", Value: "25"}, {Name: "maxIssuesByImpact.critical", Value: "0"}}
	for _, tc := range []struct {
		name      string
		args      []string
		wantImage string
	}{
		{"one pod", Job(sampleScan(), opts, Baseline{}).Spec.Template.Spec.Containers[0].Args, "cwac:1.0"},
		{"the scan's own image", Job(ownImage, opts, Baseline{}).Spec.Template.Spec.Containers[0].Args, "registry.example/cwac:2.1"},
		{"shards", Job(sharded, opts, Baseline{}).Spec.Template.Spec.Containers[0].Args, "cwac:1.0"},
		{"merge", MergePod(sharded, opts, Baseline{}, nil).Spec.Containers[0].Args, "cwac:1.0"},
		{"an image too long for the runner", Job(sampleScan(), longDefault, Baseline{}).Spec.Template.Spec.Containers[0].Args, ""},
	} {
		var got scanpod.RunnerFlags
		fs := flag.NewFlagSet("runner", flag.ContinueOnError)
		got.Bind(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got.ScanName != "nightly" || got.ScanNamespace != sampleScan().Namespace || got.CWACImage != tc.wantImage {
			t.Errorf("%s: scan %s/%s, image %q; want %s/nightly, %q", tc.name, got.ScanNamespace, got.ScanName, got.CWACImage, sampleScan().Namespace, tc.wantImage)
		}
		if diff := cmp.Diff(wantThresholds, got.Thresholds); diff != "" {
			t.Errorf("%s: thresholds (-want +got):\n%s", tc.name, diff)
		}
	}

	noThresholds := sampleScan()
	noThresholds.Spec.Thresholds = nil
	for _, a := range Job(noThresholds, opts, Baseline{}).Spec.Template.Spec.Containers[0].Args {
		if strings.HasPrefix(a, "--threshold") {
			t.Errorf("a scan without thresholds is given %s", a)
		}
	}
}
