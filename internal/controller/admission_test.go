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
