package mcpserver

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// ReasonCreatedViaMCP is the reason of the Event left on every scan created
// through MCP.
const ReasonCreatedViaMCP = "CreatedViaMCP"

// recordCreation leaves an Event on the new scan saying who created it
// through MCP, so `kubectl describe` shows it next to the operator's own
// Events. Failing to record it does not fail the call: the scan exists, and
// the caller annotation and the audit line name the caller too.
func (s *Server) recordCreation(ctx context.Context, scan *cwacv1alpha1.CwacScan, call *callInfo) {
	now := metav1.NewMicroTime(s.now())
	ev := &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{GenerateName: scanspec.EventNamePrefix(scan.Name, "created"), Namespace: scan.Namespace},
		EventTime:           now,
		ReportingController: "cwac.a11y.dev/mcp-server",
		ReportingInstance:   truncate("mcp-server-"+hostname(), 128),
		Action:              "Create",
		Reason:              ReasonCreatedViaMCP,
		Type:                corev1.EventTypeNormal,
		Note:                truncate(fmt.Sprintf("created through MCP (%s) by %s", call.Transport, call.Caller), 1024),
		Regarding: corev1.ObjectReference{
			APIVersion: cwacv1alpha1.GroupVersion.String(), Kind: "CwacScan", Namespace: scan.Namespace, Name: scan.Name, UID: scan.UID,
		},
	}
	if err := s.cfg.Client.Create(ctx, ev); err != nil {
		s.cfg.Log.Warn("recording the creation event", "scan", scan.Name, "err", err)
	}
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}
