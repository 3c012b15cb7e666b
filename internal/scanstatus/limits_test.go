package scanstatus

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

func organisations(n int) []results.OrganisationChange {
	if n == 0 {
		return nil
	}
	out := make([]results.OrganisationChange, 0, n)
	for i := range n {
		out = append(out, results.OrganisationChange{Organisation: fmt.Sprintf("org-%02d", i), New: int64(i), Fixed: 1, Unchanged: 2})
	}
	return out
}

// The comparison with the baseline survives the status, its organisations
// cut to the CRD's 50 (maxDiffOrganisations): one below, at and one above.
func TestDiffRoundTripOrganisationsBoundary(t *testing.T) {
	tests := []struct {
		name          string
		organisations int
		want          int
	}{
		{"none", 0, 0},
		{"one below the cap", maxDiffOrganisations - 1, maxDiffOrganisations - 1},
		{"at the cap", maxDiffOrganisations, maxDiffOrganisations},
		{"one above the cap", maxDiffOrganisations + 1, maxDiffOrganisations},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diff := &results.DiffCounts{
				Baseline: "nightly-1", New: 5, Fixed: 4, Unchanged: 3, Unstable: 2, NewElements: 5, FixedElements: 3,
				NewByImpact: map[string]int64{"critical": 5}, FixedByImpact: map[string]int64{"minor": 4},
				ByOrganisation: organisations(tt.organisations),
			}
			want := *diff
			want.ByOrganisation = organisations(tt.want)
			got := FromAPI(ToAPI(&results.Summary{TotalIssues: 9, Diff: diff}))
			if d := cmp.Diff(&results.Summary{TotalIssues: 9, Diff: &want}, got); d != "" {
				t.Errorf("round trip (-want +got):\n%s", d)
			}
			if len(diff.ByOrganisation) != tt.organisations {
				t.Errorf("the caller's list was changed to %d organisations", len(diff.ByOrganisation))
			}
		})
	}
}

// A summary without a comparison keeps none in the status.
func TestNoDiff(t *testing.T) {
	if got := ToAPI(&results.Summary{TotalIssues: 1}); got.Diff != nil {
		t.Errorf("ToAPI made a diff: %+v", got.Diff)
	}
}

// Durations are rounded to whole seconds, half up.
func TestDurationRounding(t *testing.T) {
	for _, tt := range []struct {
		in   float64
		want int64
	}{{0, 0}, {0.49, 0}, {0.5, 1}, {1.5, 2}, {59.99, 60}} {
		if got := ToAPI(&results.Summary{DurationSeconds: tt.in}).DurationSeconds; got != tt.want {
			t.Errorf("DurationSeconds %v: %d, want %d", tt.in, got, tt.want)
		}
	}
}

// What an ending takes from CWAC's error output into status.failure is cut
// to its limit, the marker included: the cause (one line) to 1024 bytes
// from its start, the log tail to 2048 from its end; the message names the
// whole cause. One below, at and one above each limit.
func TestEndingFailureLimits(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name           string
		stderrBytes    int
		cause, logTail string
	}{
		{name: "cause one below", stderrBytes: maxCauseBytes - 1, cause: a(maxCauseBytes - 1), logTail: a(maxCauseBytes - 1)},
		{name: "cause at", stderrBytes: maxCauseBytes, cause: a(maxCauseBytes), logTail: a(maxCauseBytes)},
		{name: "cause one above", stderrBytes: maxCauseBytes + 1, cause: a(maxCauseBytes-3) + "…", logTail: a(maxCauseBytes + 1)},
		{name: "tail one below", stderrBytes: maxLogTailBytes - 1, cause: a(maxCauseBytes-3) + "…", logTail: a(maxLogTailBytes - 1)},
		{name: "tail at", stderrBytes: maxLogTailBytes, cause: a(maxCauseBytes-3) + "…", logTail: a(maxLogTailBytes)},
		{name: "tail one above", stderrBytes: maxLogTailBytes + 1, cause: a(maxCauseBytes-3) + "…", logTail: "…" + a(maxLogTailBytes-3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := End(Observed{Job: jobFailed, Terminated: terminated(1, scanpod.Report{
				Outcome: scanpod.OutcomeCWACFailed, ExitCode: 1, StderrTail: a(tt.stderrBytes)})})
			if got.Cause != tt.cause {
				t.Errorf("cause: %d bytes, want %d", len(got.Cause), len(tt.cause))
			}
			if got.LogTail != tt.logTail {
				t.Errorf("log tail: %d bytes, want %d", len(got.LogTail), len(tt.logTail))
			}
			if want := "CWAC exited with code 1: " + a(tt.stderrBytes); got.Message != want {
				t.Errorf("message: %d bytes, want the whole cause (%d)", len(got.Message), len(want))
			}
		})
	}
}

// A failed merge's message quotes the merge pod's words cut to 1024 bytes,
// the marker included: one below, at and one above.
func TestEndingMergeWhyLimit(t *testing.T) {
	const prefix, suffix = "merging the shards' results failed: ", "; each shard's results are kept under ns/s/shards"
	for _, tt := range []struct {
		whyBytes int
		want     string
	}{
		{maxMergeWhyBytes - 1, strings.Repeat("w", maxMergeWhyBytes-1)},
		{maxMergeWhyBytes, strings.Repeat("w", maxMergeWhyBytes)},
		{maxMergeWhyBytes + 1, strings.Repeat("w", maxMergeWhyBytes-3) + "…"},
	} {
		got := End(Observed{ScanDir: "ns/s", Sharded: true,
			MergePod: &MergePod{Name: "m", Phase: corev1.PodFailed, Message: strings.Repeat("w", tt.whyBytes)}})
		if want := prefix + tt.want + suffix; got.Message != want {
			t.Errorf("why of %d bytes: message of %d bytes, want %d", tt.whyBytes, len(got.Message), len(want))
		}
	}
}

// Figures from the pod's report are brought into their fields' ranges
// rather than wrapping: the duration (issue 20's 1e308 seconds became
// -9.2e18), the int32 counts and the total.
func TestToAPIClampsFigures(t *testing.T) {
	tests := []struct {
		name     string
		in       results.Summary
		duration int64
		urls     int32
		pages    int32
		total    int64
	}{
		{"ordinary", results.Summary{DurationSeconds: 12.4, URLsScanned: 3, PagesScanned: 4, TotalIssues: 5}, 12, 3, 4, 5},
		{"rounded half up", results.Summary{DurationSeconds: 12.5}, 13, 0, 0, 0},
		{"a second at most rounds to one", results.Summary{DurationSeconds: 0.5}, 1, 0, 0, 0},
		{"a tiny duration", results.Summary{DurationSeconds: 0.4}, 0, 0, 0, 0},
		{"1e308 seconds", results.Summary{DurationSeconds: 1e308}, math.MaxInt32, 0, 0, 0},
		{"one below the limit", results.Summary{DurationSeconds: math.MaxInt32 - 1}, math.MaxInt32 - 1, 0, 0, 0},
		{"at the limit", results.Summary{DurationSeconds: math.MaxInt32}, math.MaxInt32, 0, 0, 0},
		{"infinite", results.Summary{DurationSeconds: math.Inf(1)}, math.MaxInt32, 0, 0, 0},
		{"negative", results.Summary{DurationSeconds: -5, URLsScanned: -1, PagesScanned: -1, TotalIssues: -1, DecidedIssues: -1}, 0, 0, 0, 0},
		{"not a number", results.Summary{DurationSeconds: math.NaN()}, 0, 0, 0, 0},
		{"counts at int32's limit", results.Summary{URLsScanned: math.MaxInt32, PagesScanned: math.MaxInt32}, 0, math.MaxInt32, math.MaxInt32, 0},
		{"counts past it", results.Summary{URLsScanned: math.MaxInt32 + 1, PagesScanned: 1 << 40}, 0, math.MaxInt32, math.MaxInt32, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ToAPI(&tt.in)
			if got.DecidedIssues != max(tt.in.DecidedIssues, 0) {
				t.Errorf("decided %d from %d", got.DecidedIssues, tt.in.DecidedIssues)
			}
			if got.DurationSeconds != tt.duration || got.UrlsScanned != tt.urls || got.PagesScanned != tt.pages || got.TotalIssues != tt.total {
				t.Errorf("duration %d, URLs %d, pages %d, total %d; want %d, %d, %d, %d",
					got.DurationSeconds, got.UrlsScanned, got.PagesScanned, got.TotalIssues, tt.duration, tt.urls, tt.pages, tt.total)
			}
		})
	}
}
