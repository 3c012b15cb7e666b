//go:build integration

package controller

import (
	"fmt"
	"testing"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// TestArrivalsAreForgotten: every new scan is numbered while it waits for
// its Job, and forgotten once it has one, is refused or is deleted, so the
// numbering keeps nothing for ever.
func TestArrivalsAreForgotten(t *testing.T) {
	var r *CwacScanReconciler
	startManagerWith(t, Options{JobOptions: testOpts, Policy: testPolicy(), inspect: func(built *CwacScanReconciler) { r = built }})
	ns := newNamespace(t)
	// A scan that exists when the informers first list is not new: wait
	// until they watch before creating the scans under test.
	createScan(t, ns, "warm-up", simpleSpec())
	waitJob(t, ns, "warm-up")
	for i := range 3 {
		createScan(t, ns, fmt.Sprintf("started-%d", i), simpleSpec())
	}
	createScan(t, ns, "refused", cwacv1alpha1.CwacScanSpec{URLs: []string{"http://metadata.attacker.example/"}})
	for i := range 3 {
		waitJob(t, ns, fmt.Sprintf("started-%d", i))
	}
	waitPhase(t, ns, "refused", cwacv1alpha1.PhaseFailed)
	r.arrivals.mu.Lock()
	numbered := r.arrivals.last
	r.arrivals.mu.Unlock()
	if numbered < 4 {
		t.Fatalf("%d scans numbered, want the 4 created", numbered)
	}
	waitFor(t, "every arrival forgotten", func() (bool, error) {
		n := r.arrivals.pending()
		return n == 0, fmt.Errorf("%d scans still numbered", n)
	})
}
