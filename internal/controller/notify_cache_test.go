package controller

import (
	"testing"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// TestSlimKeepsPendingNotifications: the cache keeps a finished scan's
// notifications while they are not settled (the notification controller
// picks scans by them), and drops them once they are.
func TestSlimKeepsPendingNotifications(t *testing.T) {
	whole := wholeScan(cwacv1alpha1.PhaseComplete)
	whole.Spec.Notifications = &cwacv1alpha1.Notifications{Receivers: []cwacv1alpha1.NotificationReceiver{{
		Name: "ops", Type: cwacv1alpha1.ReceiverWebhook, Events: []cwacv1alpha1.NotificationEvent{cwacv1alpha1.EventNewIssues},
		URLSecretRef: cwacv1alpha1.SecretKeyRef{Name: "hooks", Key: "ops"},
	}}}
	slim := func() *cwacv1alpha1.CwacScan {
		cached, err := slimFinishedScans(whole.DeepCopy())
		if err != nil {
			t.Fatal(err)
		}
		got, _ := scanOf(cached)
		return got
	}
	if s := slim(); !s.NotificationsPending() || s.Spec.Notifications == nil {
		t.Fatal("undecided notifications were dropped from the cache")
	}
	whole.Status.Notifications = &cwacv1alpha1.NotificationStatus{Deliveries: []cwacv1alpha1.NotificationDelivery{
		{Receiver: "ops", Event: cwacv1alpha1.EventNewIssues, State: cwacv1alpha1.DeliveryPending}}}
	if s := slim(); !s.NotificationsPending() || s.Status.Notifications == nil {
		t.Fatal("a pending delivery was dropped from the cache")
	}
	whole.Status.Notifications.Deliveries[0].State = cwacv1alpha1.DeliverySent
	if s := slim(); s.NotificationsPending() || s.Spec.Notifications != nil || s.Status.Notifications != nil {
		t.Errorf("settled notifications kept in the cache: %+v %+v", s.Spec.Notifications, s.Status.Notifications)
	}
}
