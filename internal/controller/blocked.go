package controller

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanstatus"
)

// observeBlocked sets ConnectionsBlocked from the scan pod's report: True
// (BlockedByPolicy, with a Warning Event the first time) naming the hosts
// its egress proxy refused, False (NoneBlocked) when it refused none. With
// no report there is nothing to say either way.
func (w *statusWriter) observeBlocked(scan *cwacv1alpha1.CwacScan, e scanstatus.Ending) {
	switch {
	case e.Blocked != nil:
		msg := e.Blocked.Describe(scanpod.MaxReportedBlockedHosts)
		if c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionConnectionsBlocked); c == nil || c.Status != metav1.ConditionTrue {
			w.event(scan, corev1.EventTypeWarning, cwacv1alpha1.ReasonBlockedByPolicy, msg)
		}
		w.setCondition(scan, cwacv1alpha1.ConditionConnectionsBlocked, metav1.ConditionTrue, cwacv1alpha1.ReasonBlockedByPolicy, msg)
	case e.Reported:
		w.setCondition(scan, cwacv1alpha1.ConditionConnectionsBlocked, metav1.ConditionFalse, cwacv1alpha1.ReasonNoneBlocked,
			"the scan pod's egress proxy refused no connection")
	}
}
