package mcpserver

import (
	"context"
	"fmt"
	"log/slog"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// The server reads its namespace's decisions from an informer: the
// dashboard's issue pages show them, and the history's writer records
// their changes (decision_events).
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacissuedecisions,verbs=get;list;watch

// DecisionSource reads the namespace's CwacIssueDecisions from the
// server's cache, and the informer that feeds it.
type DecisionSource struct {
	Reader   client.Reader
	Informer cache.Informer
}

// List is the namespace's decisions.
func (s DecisionSource) List(ctx context.Context, namespace string) ([]cwacv1alpha1.CwacIssueDecision, error) {
	list := &cwacv1alpha1.CwacIssueDecisionList{}
	if err := s.Reader.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("reading decisions: %w", err)
	}
	return list.Items, nil
}

// WatchDecisions adds the decisions to the scan cache (StartScanCache)
// and returns their source; nil, having logged why, when they cannot be
// watched (the CRD is not installed, or the server's role lacks it): then
// the dashboard shows no decisions and the history records none, and
// everything else works.
func WatchDecisions(ctx context.Context, c cache.Cache, log *slog.Logger) *DecisionSource {
	if c == nil {
		return nil
	}
	syncCtx, cancel := context.WithTimeout(ctx, scanListSyncTimeout)
	defer cancel()
	// On the started cache this waits for the informer's first list.
	informer, err := c.GetInformer(syncCtx, &cwacv1alpha1.CwacIssueDecision{})
	if err != nil {
		// An informer that cannot list would retry (and log) forever.
		_ = c.RemoveInformer(ctx, &cwacv1alpha1.CwacIssueDecision{})
		log.Warn("decisions are not read (is the CwacIssueDecision CRD installed, and may the MCP server's role list and watch "+
			"cwacissuedecisions?): the dashboard shows none and offers no decide form, and the history records none", "err", err)
		return nil
	}
	return &DecisionSource{Reader: c, Informer: informer}
}
