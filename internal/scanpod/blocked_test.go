package scanpod

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

func blockedHosts(n int) *results.BlockedConnections {
	b := &results.BlockedConnections{}
	for i := range n {
		b.Add(fmt.Sprintf("10.0.0.%d:443", i), "private", "10.0.0.x is a private address", 2)
	}
	return b
}

// The report names at most MaxReportedBlockedHosts refused hosts, without
// details, beside the summary (never inside it), and the caller's record
// stays whole.
func TestEncodeBlocked(t *testing.T) {
	for _, n := range []int{MaxReportedBlockedHosts - 1, MaxReportedBlockedHosts, MaxReportedBlockedHosts + 1} {
		b := blockedHosts(n)
		summary := &results.Summary{PagesScanned: 1, BlockedByPolicy: b}
		got, ok := Decode(string(Encode(Report{Outcome: OutcomeComplete, Summary: summary, BlockedByPolicy: b}, MaxBytes)))
		if !ok || got.Truncated {
			t.Fatalf("%d hosts: %+v", n, got)
		}
		want := &results.BlockedConnections{Total: int64(2 * n)}
		for _, h := range b.Hosts[:min(n, MaxReportedBlockedHosts)] {
			want.Hosts = append(want.Hosts, results.BlockedHost{Host: h.Host, Rule: h.Rule, Count: h.Count})
		}
		if diff := cmp.Diff(want, got.BlockedByPolicy); diff != "" {
			t.Errorf("%d hosts (-want +got):\n%s", n, diff)
		}
		if got.Summary.BlockedByPolicy != nil {
			t.Errorf("%d hosts: the summary in the report carries them too", n)
		}
		if len(b.Hosts) != n || b.Hosts[0].Detail == "" || summary.BlockedByPolicy != b {
			t.Errorf("%d hosts: the caller's record was changed", n)
		}
	}
	// A scan with no results reports its refusals all the same.
	got, _ := Decode(string(Encode(Report{Outcome: OutcomeNoPages, BlockedByPolicy: blockedHosts(1)}, MaxBytes)))
	if got.BlockedByPolicy == nil || got.BlockedByPolicy.Total != 2 || got.BlockedByPolicy.Hosts[0].Host != "10.0.0.0:443" {
		t.Errorf("without a summary: %+v", got.BlockedByPolicy)
	}
	if data := Encode(Report{Outcome: OutcomeComplete}, MaxBytes); strings.Contains(string(data), "blocked") {
		t.Errorf("nothing refused, yet: %s", data)
	}
}

// Refused hosts are cut to one first of all, and to their count alone
// after the summary's lists; the count stays till the summary goes.
func TestEncodeCutsBlocked(t *testing.T) {
	long := func(i int) string { return strings.Repeat("h", 200) + fmt.Sprint(i) + ".example.org:443" }
	b := &results.BlockedConnections{}
	for i := range MaxReportedBlockedHosts {
		b.Add(long(i), "private", "", 1)
	}
	m := Report{Outcome: OutcomeComplete, Message: "m", StderrTail: strings.Repeat("s", 1600), BlockedByPolicy: b,
		Summary: &results.Summary{TotalIssues: 1, IssuesByAuditType: map[string]int64{"axe_core_audit": 1}}}
	whole := Encode(m, MaxBytes)
	got, _ := Decode(string(Encode(m, len(whole)-1)))
	if len(got.BlockedByPolicy.Hosts) != 1 || got.StderrTail != m.StderrTail || !got.Truncated {
		t.Errorf("first step: %d hosts, stderr %d bytes", len(got.BlockedByPolicy.Hosts), len(got.StderrTail))
	}
	// Small enough that everything before the summary's audit counts is
	// cut: the hosts go then, the count stays.
	got, _ = Decode(string(Encode(m, 300)))
	if got.BlockedByPolicy == nil || got.BlockedByPolicy.Total != MaxReportedBlockedHosts || got.BlockedByPolicy.Hosts != nil {
		t.Errorf("late step: %+v", got.BlockedByPolicy)
	}
	data, _ := json.Marshal(got)
	if len(data) > 300 {
		t.Errorf("%d bytes over a limit of 300", len(data))
	}
}
