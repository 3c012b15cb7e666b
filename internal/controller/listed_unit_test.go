package controller

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// TestIdleWhenListed: which listed scans the scan controller leaves
// unqueued, read whole or from the cache's record of a finished scan.
func TestIdleWhenListed(t *testing.T) {
	ttl := int32(60)
	now := metav1.Now()
	scan := func(phase cwacv1alpha1.Phase, change func(*cwacv1alpha1.CwacScan)) *cwacv1alpha1.CwacScan {
		s := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", UID: "u"}}
		s.Status.Phase = phase
		if change != nil {
			change(s)
		}
		return s
	}
	tests := []struct {
		name string
		scan *cwacv1alpha1.CwacScan
		idle bool
	}{
		{"complete, no TTL", scan(cwacv1alpha1.PhaseComplete, nil), true},
		{"failed, no TTL", scan(cwacv1alpha1.PhaseFailed, nil), true},
		{"complete with a TTL", scan(cwacv1alpha1.PhaseComplete, func(s *cwacv1alpha1.CwacScan) { s.Spec.TTLSecondsAfterFinished = &ttl }), false},
		{"complete, being deleted", scan(cwacv1alpha1.PhaseComplete, func(s *cwacv1alpha1.CwacScan) {
			s.DeletionTimestamp = &now
			s.Finalizers = []string{FinalizerDeleteResults}
		}), false},
		{"new", scan("", nil), false},
		{"pending", scan(cwacv1alpha1.PhasePending, nil), false},
		{"queued", scan(cwacv1alpha1.PhaseQueued, nil), false},
		{"running", scan(cwacv1alpha1.PhaseRunning, nil), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := idleWhenListed(tt.scan); got != tt.idle {
				t.Errorf("whole scan: idle %v, want %v", got, tt.idle)
			}
			if !tt.scan.Status.Phase.Finished() {
				return
			}
			if got := idleWhenListed(compactScan(tt.scan)); got != tt.idle {
				t.Errorf("cached record: idle %v, want %v", got, tt.idle)
			}
		})
	}
	if idleWhenListed(&cwacv1alpha1.CwacScanSchedule{}) {
		t.Error("a schedule counted as an idle scan")
	}
}
