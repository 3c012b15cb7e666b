package scanstatus

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// The refusals of the pod's egress proxy are taken from its report
// whichever way the scan ended, bounded whatever the pod wrote; with no
// report there is nothing to say either way.
func TestEndBlocked(t *testing.T) {
	one := &results.BlockedConnections{Total: 3, Hosts: []results.BlockedHost{{Host: "169.254.169.254:80", Rule: "link-local", Count: 3}}}
	tests := []struct {
		name         string
		in           Observed
		wantReported bool
		want         *results.BlockedConnections
	}{
		{
			name: "complete, some refused",
			in: Observed{Job: jobComplete, Terminated: terminated(0, scanpod.Report{Outcome: scanpod.OutcomeComplete, Message: "m",
				BlockedByPolicy: one})},
			wantReported: true, want: one,
		},
		{
			name:         "complete, none refused",
			in:           Observed{Job: jobComplete, Terminated: terminated(0, scanpod.Report{Outcome: scanpod.OutcomeComplete, Message: "m"})},
			wantReported: true,
		},
		{
			name: "no pages: everything refused",
			in: Observed{Job: jobComplete, Terminated: terminated(0, scanpod.Report{Outcome: scanpod.OutcomeNoPages, Message: "m",
				BlockedByPolicy: one})},
			wantReported: true, want: one,
		},
		{
			name: "CWAC failed after refusals",
			in: Observed{Job: jobFailed, Terminated: terminated(3, scanpod.Report{Outcome: scanpod.OutcomeCWACFailed, ExitCode: 3,
				BlockedByPolicy: one})},
			wantReported: true, want: one,
		},
		{
			name: "the merge pod's report",
			in: Observed{Sharded: true, MergePod: &MergePod{Name: "m", Phase: corev1.PodSucceeded},
				Terminated: terminated(0, scanpod.Report{Outcome: scanpod.OutcomeComplete, Message: "m", BlockedByPolicy: one})},
			wantReported: true, want: one,
		},
		{name: "no report: the pod is gone", in: Observed{Job: jobComplete}},
		{name: "no report: a log tail", in: Observed{Job: jobFailed, Terminated: terminated(1, "panic: boom")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := End(tt.in)
			if got.Reported != tt.wantReported {
				t.Errorf("Reported %v, want %v", got.Reported, tt.wantReported)
			}
			if diff := cmp.Diff(tt.want, got.Blocked); diff != "" {
				t.Errorf("Blocked (-want +got):\n%s", diff)
			}
		})
	}
}

// A report is a pod's word: however many hosts, however long their texts,
// the ending keeps scanpod.MaxReportedBlockedHosts of them, cut.
func TestEndBlockedIsBounded(t *testing.T) {
	b := &results.BlockedConnections{Total: 1000}
	for i := range 50 {
		b.Hosts = append(b.Hosts, results.BlockedHost{
			Host: fmt.Sprintf("%d.%s:80", i, strings.Repeat("h", 300)), Rule: strings.Repeat("r", 300), Count: 20,
		})
	}
	data, err := json.Marshal(b) // the report is built by hand: Encode would already cut it
	if err != nil {
		t.Fatal(err)
	}
	report := `{"outcome":"complete","exit_code":0,"blocked_by_policy":` + string(data) + `}`
	got := End(Observed{Job: jobComplete, Terminated: terminated(0, report)}).Blocked
	if got == nil || got.Total != 1000 || len(got.Hosts) != scanpod.MaxReportedBlockedHosts {
		t.Fatalf("kept %+v", got)
	}
	for _, h := range got.Hosts {
		if len(h.Host) > results.MaxBlockedTextBytes || len(h.Rule) > results.MaxBlockedTextBytes {
			t.Errorf("kept a host of %d bytes, a rule of %d", len(h.Host), len(h.Rule))
		}
	}
}
