package controller

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanstatus"
)

// ConnectionsBlocked says what the pod's egress proxy refused: True naming
// the hosts, with one Warning Event; False when it refused none; nothing
// without a report.
func TestObserveBlocked(t *testing.T) {
	blocked := &results.BlockedConnections{Total: 4, Hosts: []results.BlockedHost{
		{Host: "169.254.169.254:80", Rule: "link-local", Count: 3}, {Host: "10.0.0.7:443", Rule: "private", Count: 1},
	}}
	tests := []struct {
		name       string
		ending     scanstatus.Ending
		wantStatus metav1.ConditionStatus // "": no condition
		wantReason string
		wantMsg    string
	}{
		{
			name: "refused", ending: scanstatus.Ending{Reported: true, Blocked: blocked},
			wantStatus: metav1.ConditionTrue, wantReason: cwacv1alpha1.ReasonBlockedByPolicy,
			wantMsg: "blocked by policy: 169.254.169.254:80 (link-local), 10.0.0.7:443 (private); 4 connections in all",
		},
		{
			name: "none refused", ending: scanstatus.Ending{Reported: true},
			wantStatus: metav1.ConditionFalse, wantReason: cwacv1alpha1.ReasonNoneBlocked, wantMsg: "refused no connection",
		},
		{name: "no report", ending: scanstatus.Ending{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := events.NewFakeRecorder(10)
			w := &statusWriter{recorder: rec}
			scan := &cwacv1alpha1.CwacScan{}
			w.observeBlocked(scan, tt.ending)
			w.observeBlocked(scan, tt.ending) // the same ending again: no second Event
			c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionConnectionsBlocked)
			switch {
			case tt.wantStatus == "":
				if c != nil {
					t.Errorf("condition %+v, want none", c)
				}
			case c == nil || c.Status != tt.wantStatus || c.Reason != tt.wantReason || !strings.Contains(c.Message, tt.wantMsg):
				t.Errorf("condition %+v, want %s/%s with %q", c, tt.wantStatus, tt.wantReason, tt.wantMsg)
			}
			close(rec.Events)
			var got []string
			for e := range rec.Events {
				got = append(got, e)
			}
			wantEvents := 0
			if tt.wantStatus == metav1.ConditionTrue {
				wantEvents = 1
			}
			if len(got) != wantEvents || wantEvents == 1 && !strings.Contains(got[0], "Warning BlockedByPolicy blocked by policy: 169.254.169.254:80") {
				t.Errorf("Events %q, want %d", got, wantEvents)
			}
		})
	}
}
