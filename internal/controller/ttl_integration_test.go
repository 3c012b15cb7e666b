//go:build integration

package controller

import (
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// TestFinishedScansExpire: a scan with ttlSecondsAfterFinished is deleted
// that long after it finished; one without, or with a long one, stays.
func TestFinishedScansExpire(t *testing.T) {
	startManager(t, 0)
	ns := newNamespace(t)
	// finish drives a scan to Complete; watchPhase is false for the 1-second
	// scan, which may be deleted before a loaded test machine polls it in
	// Complete (CI saw exactly that); its deletion below is the proof.
	finish := func(name string, ttl *int32, watchPhase bool) {
		spec := simpleSpec()
		spec.TTLSecondsAfterFinished = ttl
		createScan(t, ns, name, spec)
		job := waitJob(t, ns, name)
		startPod(t, job, terminatedStatus(0, "Completed", report(scanpod.Report{Outcome: scanpod.OutcomeComplete, Summary: realSummary(t)})))
		finishJob(t, job, true, "", "")
		if watchPhase {
			waitPhase(t, ns, name, cwacv1alpha1.PhaseComplete)
		}
	}
	finish("short", ptr.To[int32](1), false)
	finish("long", ptr.To[int32](3600), true)
	finish("kept", nil, true)

	waitFor(t, "the short-lived scan to be deleted", func() (bool, error) {
		err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: "short"}, &cwacv1alpha1.CwacScan{})
		return apierrors.IsNotFound(err), err
	})
	time.Sleep(time.Second) // the others had as long as the short one, and more
	for _, name := range []string{"long", "kept"} {
		if err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: name}, &cwacv1alpha1.CwacScan{}); err != nil {
			t.Errorf("scan %s: %v, want it kept", name, err)
		}
	}
}
