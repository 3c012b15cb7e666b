//go:build integration

package controller

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// mixedSummary is the summary of results/testdata/completeness/mixed: CWAC's
// real output with sites refused (403, 429), challenged, unreachable and
// missing beside complete ones.
func mixedSummary(t *testing.T) *results.Summary {
	t.Helper()
	s, err := results.Summarize("../results/testdata/completeness/mixed", results.Options{Sites: []results.ExpectedSite{
		{Organisation: "CWAC Test Org", URL: "http://127.0.0.1:8765/"},
		{Organisation: "Missing Org", URL: "https://missing.example.govt.nz/"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A completed scan's AllSitesComplete condition says whether every
// organisation was scanned completely: False/OrganisationsIncomplete naming
// the worst first (with a Warning Event, and requireComplete's gate
// crossed); True/AllOrganisationsComplete for CWAC's real complete run;
// Unknown/CompletenessUnknown for a report without it.
func TestStatusShowsCompleteness(t *testing.T) {
	startManager(t, 0)
	ns := newNamespace(t)
	spec := simpleSpec()
	spec.Thresholds = &cwacv1alpha1.Thresholds{RequireComplete: true}
	for _, tc := range []struct {
		name    string
		summary *results.Summary
		status  metav1.ConditionStatus
		reason  string
		message string
		met     metav1.ConditionStatus
	}{
		{name: "mixed", summary: mixedSummary(t), status: metav1.ConditionFalse, reason: cwacv1alpha1.ReasonOrganisationsIncomplete,
			message: "organisations not complete (9 of 11): Bot Org (blocked: https://bot.example.govt.nz/ blocked: every page loaded was a challenge page",
			met:     metav1.ConditionFalse},
		{name: "real", summary: realSummary(t), status: metav1.ConditionTrue, reason: cwacv1alpha1.ReasonAllOrganisationsComplete,
			message: "every organisation was scanned completely (1)", met: metav1.ConditionTrue},
		{name: "unreported", summary: &results.Summary{PagesScanned: 4, TotalIssues: 1}, status: metav1.ConditionUnknown,
			reason: cwacv1alpha1.ReasonCompletenessUnknown, message: "completeness not known", met: metav1.ConditionFalse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			createScan(t, ns, tc.name, spec)
			job := waitJob(t, ns, tc.name)
			startPod(t, job, terminatedStatus(0, "Completed", report(scanpod.Report{
				Outcome: scanpod.OutcomeComplete, ResultsDir: realResultsDir, Summary: tc.summary,
			})))
			finishJob(t, job, true, "", "")
			scan := waitPhase(t, ns, tc.name, cwacv1alpha1.PhaseComplete)
			c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionAllSitesComplete)
			if c == nil || c.Status != tc.status || c.Reason != tc.reason || !strings.HasPrefix(c.Message, tc.message) {
				t.Fatalf("AllSitesComplete = %+v, want %s/%s %q", c, tc.status, tc.reason, tc.message)
			}
			if m := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionThresholdsMet); m == nil || m.Status != tc.met {
				t.Errorf("ThresholdsMet = %+v, want %s", m, tc.met)
			}
			if tc.status == metav1.ConditionFalse {
				waitEvents(t, scan, "Warning/"+cwacv1alpha1.ReasonOrganisationsIncomplete)
				sc := scan.Status.Summary.Completeness
				if sc == nil || sc.OrganisationsByVerdict["blocked"] != 4 || len(sc.Incomplete) != 9 {
					t.Errorf("status.summary.completeness %+v", sc)
				}
			}
		})
	}
}
