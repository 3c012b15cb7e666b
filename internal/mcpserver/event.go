package mcpserver

import (
	"context"
	"fmt"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanevent"
)

// ReasonCreatedViaMCP is the reason of the Event left on every scan created
// through MCP.
const ReasonCreatedViaMCP = "CreatedViaMCP"

// recordCreation leaves an Event on the new scan saying who created it
// through MCP, so `kubectl describe` shows it next to the operator's own
// Events. Failing to record it does not fail the call: the scan exists, and
// the caller annotation and the audit line name the caller too.
func (s *Server) recordCreation(ctx context.Context, scan *cwacv1alpha1.CwacScan, call *callInfo) {
	ev := scanevent.New(scanevent.MCPServer, scan, scanevent.Event{NamePart: "created", Action: "Create", Reason: ReasonCreatedViaMCP,
		Note: fmt.Sprintf("created through MCP (%s) by %s", call.Transport, call.Caller), At: s.now()})
	if err := s.cfg.Client.Create(ctx, ev); err != nil {
		s.cfg.Log.Warn("recording the creation event", "scan", scan.Name, "err", err)
	}
}
