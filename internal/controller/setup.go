package controller

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// CacheByObject limits the manager's cache to the Jobs and pods the operator
// made, so it never holds the cluster's other pods in memory.
func CacheByObject() map[client.Object]cache.ByObject {
	managed := labels.SelectorFromSet(labels.Set{scanjob.LabelManagedBy: scanjob.ManagedByValue})
	return map[client.Object]cache.ByObject{
		&batchv1.Job{}: {Label: managed},
		&corev1.Pod{}:  {Label: managed},
	}
}

// Options configure Setup.
type Options struct {
	JobOptions         scanjob.Options
	MaxConcurrentScans int
	WatchNamespaces    []string
	SkipNameValidation bool
	Policy             *urlpolicy.Policy
	MaxURLsPerScan     int
}

// Setup wires a CwacScanReconciler into mgr.
func Setup(mgr ctrl.Manager, o Options) error {
	r := &CwacScanReconciler{
		Client:             mgr.GetClient(),
		APIReader:          mgr.GetAPIReader(),
		Scheme:             mgr.GetScheme(),
		Recorder:           mgr.GetEventRecorder("cwac-operator"),
		JobOptions:         o.JobOptions,
		MaxConcurrentScans: o.MaxConcurrentScans,
		WatchNamespaces:    o.WatchNamespaces,
		SkipNameValidation: o.SkipNameValidation,
		Policy:             o.Policy,
		MaxURLsPerScan:     o.MaxURLsPerScan,
	}
	return r.SetupWithManager(mgr)
}
