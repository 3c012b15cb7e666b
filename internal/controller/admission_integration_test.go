//go:build integration

package controller

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// silentDNS never answers names under .silent.example (it waits until the
// lookup is cancelled); every other name resolves to a public address.
type silentDNS struct{}

func (silentDNS) LookupNetIP(ctx context.Context, _, host string) ([]netip.Addr, error) {
	if strings.HasSuffix(host, ".silent.example") {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return []netip.Addr{netip.MustParseAddr("151.101.0.80")}, nil
}

// TestSlowAdmissionDelaysNoOtherScan: a scan of 400 URLs whose names never
// resolve holds only its own admission; an unrelated scan created after it
// gets its Job at once, and the slow scan ends Failed/AdmissionTimedOut when
// its budget is spent, having run nothing.
func TestSlowAdmissionDelaysNoOtherScan(t *testing.T) {
	const budget = 3 * time.Second
	policy := urlpolicy.New(urlpolicy.Config{Resolver: silentDNS{}})
	startManagerWith(t, Options{JobOptions: testOpts, Policy: policy, AdmissionTimeout: budget})
	ns := newNamespace(t)

	slow := cwacv1alpha1.CwacScanSpec{}
	for i := range 400 {
		slow.URLs = append(slow.URLs, fmt.Sprintf("https://site-%d.silent.example/", i))
	}
	createScan(t, ns, "slow", slow)
	time.Sleep(200 * time.Millisecond) // the slow scan's checks are under way
	createdAt := time.Now()
	createScan(t, ns, "unrelated", simpleSpec())
	waitJob(t, ns, "unrelated")
	waited := time.Since(createdAt)
	if s := getScan(t, ns, "slow"); s.Status.Phase.Finished() || s.Status.JobName != "" {
		t.Fatalf("the slow scan was decided before the unrelated one started (phase %s): the test proves nothing", s.Status.Phase)
	}
	t.Logf("unrelated scan: created → Job in %s while the slow scan's lookups hang", waited.Round(time.Millisecond))

	s := waitPhase(t, ns, "slow", cwacv1alpha1.PhaseFailed)
	c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionFailed)
	if c == nil || c.Reason != cwacv1alpha1.ReasonAdmissionTimedOut || !strings.Contains(c.Message, "400 base URLs") ||
		!strings.Contains(c.Message, budget.String()) {
		t.Errorf("Failed condition = %+v, want AdmissionTimedOut naming 400 base URLs and the %s budget", c, budget)
	}
	if a := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionAdmitted); a == nil || a.Status != metav1.ConditionFalse ||
		a.Reason != cwacv1alpha1.ReasonAdmissionTimedOut {
		t.Errorf("Admitted condition = %+v", a)
	}
	if s.Status.JobName != "" {
		t.Errorf("a scan that was never admitted has Job %s", s.Status.JobName)
	}
	waitEvents(t, s, "Warning/AdmissionTimedOut")
}

// slowDNS answers names under .slow.example after a delay, with a public
// address (slow, but under the policy's 5 s lookup timeout, so nothing is
// refused and a scan of them keeps its checks busy for as long as it has
// names); every other name at once.
type slowDNS struct{ delay time.Duration }

func (d slowDNS) LookupNetIP(ctx context.Context, _, host string) ([]netip.Addr, error) {
	if strings.HasSuffix(host, ".slow.example") {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(d.delay):
		}
	}
	return []netip.Addr{netip.MustParseAddr("151.101.0.80")}, nil
}

// admittedWithin polls until the scan has its Job, and says how long that took.
func admittedWithin(t *testing.T, ns, name string, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for time.Since(start) < limit {
		if getScan(t, ns, name).Status.JobName != "" {
			return time.Since(start)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("scan %s/%s has no Job after %s", ns, name, limit)
	return 0
}

// TestSlowScansDelayNoOtherAdmission: eight scans of 400 names that take
// 3 s each to resolve fill one namespace's share of the URL checks (with
// four admission workers that each checked one scan to its end, an
// unrelated scan waited ⌈8/4⌉ budgets: 240 s with the default 2 minutes).
// A scan in another namespace gets its Job at once, and a new scan in the
// slow scans' own namespace gets the first check that frees there, ahead
// of theirs: both long before any slow scan is decided.
func TestSlowScansDelayNoOtherAdmission(t *testing.T) {
	clearEarlierTests(t)
	const lookup = 3 * time.Second
	policy := urlpolicy.New(urlpolicy.Config{Resolver: slowDNS{delay: lookup}})
	startManagerWith(t, Options{JobOptions: testOpts, Policy: policy, AdmissionTimeout: time.Minute, MaxConcurrentScans: 10})
	slowNS, otherNS := newNamespace(t), newNamespace(t)
	for i := range 8 {
		slow := cwacv1alpha1.CwacScanSpec{}
		for j := range 400 {
			slow.URLs = append(slow.URLs, fmt.Sprintf("https://site-%d-%d.slow.example/", i, j))
		}
		createScan(t, slowNS, fmt.Sprint("slow-", i), slow)
	}
	time.Sleep(500 * time.Millisecond) // the slow scans' checks hold their namespace's share

	createScan(t, otherNS, "unrelated", simpleSpec())
	other := admittedWithin(t, otherNS, "unrelated", 2*time.Minute)
	createScan(t, slowNS, "newcomer", simpleSpec())
	same := admittedWithin(t, slowNS, "newcomer", 2*time.Minute)
	t.Logf("behind 8 slow scans: a scan in another namespace got its Job in %s, one in their namespace in %s",
		other.Round(time.Millisecond), same.Round(time.Millisecond))
	for i := range 8 {
		if s := getScan(t, slowNS, fmt.Sprint("slow-", i)); meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionAdmitted) != nil {
			t.Fatalf("slow scan %d was decided (%s) before the others were admitted: the test proves nothing", i, s.Status.Phase)
		}
	}
	// Generous bounds: the other namespace needs no free check at all; the
	// same namespace one check's time (a 3 s lookup), not the slow scans'.
	if other > 10*time.Second {
		t.Errorf("the scan in another namespace waited %s behind the slow scans' lookups", other)
	}
	if same > lookup+10*time.Second {
		t.Errorf("the new scan in the slow scans' namespace waited %s, more than one lookup (%s) and slack", same, lookup)
	}
}
