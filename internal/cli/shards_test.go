package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// TestBuildScanShards: --shards and --shard-failure-policy become
// spec.shards and spec.shardFailurePolicy; what the CRD would refuse is
// refused with the flag's name.
func TestBuildScanShards(t *testing.T) {
	threeURLs := []string{"https://a.example/", "https://b.example/", "https://c.example/"}
	tests := []struct {
		name       string
		flags      ScanFlags
		wantShards int32
		wantPolicy cwacv1alpha1.ShardFailurePolicy
		wantErr    string
	}{
		{name: "not given", flags: ScanFlags{URLs: threeURLs}},
		{name: "one per site", flags: ScanFlags{URLs: threeURLs, Shards: ptr(int32(3)), ShardFailurePolicy: "Partial"},
			wantShards: 3, wantPolicy: cwacv1alpha1.ShardFailurePolicyPartial},
		{name: "urls and sites count", flags: ScanFlags{URLs: threeURLs[:1], Sites: []string{"https://d.example/,D,S"},
			Shards: ptr(int32(2)), ShardFailurePolicy: "Fail"},
			wantShards: 2, wantPolicy: cwacv1alpha1.ShardFailurePolicyFail},
		{name: "zero", flags: ScanFlags{URLs: threeURLs, Shards: ptr(int32(0))}, wantErr: "--shards 0: must be 1-64"},
		{name: "65", flags: ScanFlags{URLs: threeURLs, Shards: ptr(int32(65))}, wantErr: "--shards 65: must be 1-64"},
		{name: "more than sites", flags: ScanFlags{URLs: threeURLs, Shards: ptr(int32(4))},
			wantErr: "--shards 4: more shards than the 3 sites to scan"},
		{name: "unknown policy", flags: ScanFlags{URLs: threeURLs, ShardFailurePolicy: "partial"},
			wantErr: `--shard-failure-policy "partial": must be Fail or Partial`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scan, err := BuildScan(tt.flags)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if scan.Spec.Shards != tt.wantShards || scan.Spec.ShardFailurePolicy != tt.wantPolicy {
				t.Errorf("shards %d policy %q, want %d %q", scan.Spec.Shards, scan.Spec.ShardFailurePolicy, tt.wantShards, tt.wantPolicy)
			}
		})
	}
}

func shardedScan(name string, st *cwacv1alpha1.ShardStatus) *cwacv1alpha1.CwacScan {
	return &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(testNow)},
		Spec:       cwacv1alpha1.CwacScanSpec{Shards: 4},
		Status:     cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseRunning, Shards: st},
	}
}

// TestShardsColumn: the table has a SHARDS column only when a scan in it
// is sharded.
func TestShardsColumn(t *testing.T) {
	plain := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Name: "plain", CreationTimestamp: metav1.NewTime(testNow)}}
	tests := []struct {
		name  string
		scans []*cwacv1alpha1.CwacScan
		want  [][]string // the table's cells, split on runs of spaces
	}{
		{"unsharded only", []*cwacv1alpha1.CwacScan{plain}, [][]string{
			{"NAME", "PHASE", "PAGES", "ISSUES", "CRITICAL", "SERIOUS", "MODERATE", "MINOR", "NEW", "FIXED", "THRESHOLDS", "AGE"},
			{"plain", "Pending", "-", "-", "-", "-", "-", "-", "-", "-", "-", "0s"},
		}},
		{"mixed", []*cwacv1alpha1.CwacScan{
			plain,
			shardedScan("counted", &cwacv1alpha1.ShardStatus{Total: 4, Running: 1, Succeeded: 3}),
			shardedScan("one-failed", &cwacv1alpha1.ShardStatus{Total: 4, Running: 1, Succeeded: 2, Failed: 1, FailedIndexes: "3"}),
			shardedScan("not-counted-yet", nil),
		}, [][]string{
			{"NAME", "PHASE", "SHARDS", "PAGES", "ISSUES", "CRITICAL", "SERIOUS", "MODERATE", "MINOR", "NEW", "FIXED", "THRESHOLDS", "AGE"},
			{"plain", "Pending", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "0s"},
			{"counted", "Running", "3/4", "-", "-", "-", "-", "-", "-", "-", "-", "-", "0s"},
			{"one-failed", "Running", "2/4,", "1", "failed", "-", "-", "-", "-", "-", "-", "-", "-", "-", "0s"},
			{"not-counted-yet", "Running", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "0s"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeScans(&buf, outTable, testNow, scanListing{}, tt.scans...); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			got := make([][]string, 0, len(lines))
			for _, line := range lines {
				got = append(got, strings.Fields(line))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("table (-want +got):\n%s\n%s", diff, buf.String())
			}
		})
	}
}

func TestProgressLineShards(t *testing.T) {
	tests := []struct {
		name string
		st   *cwacv1alpha1.ShardStatus
		want string
	}{
		{"not counted yet", nil, "ns/s: Running"},
		{"running", &cwacv1alpha1.ShardStatus{Total: 4, Running: 2, Succeeded: 2}, "ns/s: Running, shards 2/4 done, 2 running, 0 failed"},
		{"one failed", &cwacv1alpha1.ShardStatus{Total: 4, Running: 1, Succeeded: 2, Failed: 1, FailedIndexes: "0"},
			"ns/s: Running, shards 2/4 done, 1 running, 1 failed (0)"},
		{"merged", &cwacv1alpha1.ShardStatus{Total: 4, Succeeded: 4, Merged: true}, "ns/s: Running, shards 4/4 done, 0 running, 0 failed, merged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scan := shardedScan("s", tt.st)
			scan.Namespace = "ns"
			if got := progressLine(scan); got != tt.want {
				t.Errorf("progressLine = %q, want %q", got, tt.want)
			}
		})
	}
}
