package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
)

// The server reads its namespace's organisation grants from an informer.
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacorganisationgrants,verbs=get;list;watch

// GrantSource lists the namespace's CwacOrganisationGrants.
type GrantSource interface {
	Grants(ctx context.Context) ([]cwacv1alpha1.CwacOrganisationGrant, error)
}

// GrantLister lists the grants of one namespace from a reader (the
// server's informer cache).
type GrantLister struct {
	Reader    client.Reader
	Namespace string
}

// Grants implements GrantSource.
func (l GrantLister) Grants(ctx context.Context) ([]cwacv1alpha1.CwacOrganisationGrant, error) {
	list := &cwacv1alpha1.CwacOrganisationGrantList{}
	if err := l.Reader.List(ctx, list, client.InNamespace(l.Namespace)); err != nil {
		return nil, fmt.Errorf("reading organisation grants: %w", err)
	}
	return list.Items, nil
}

// WatchGrants adds the grants to the scan cache (StartScanCache) and
// returns their source, recording every change to them in the audit trail
// (grantChanges); nil, having logged why, when they
// cannot be watched (the CRD is not installed, or the server's role lacks
// it): then nobody reads by grant, and namespace readers are unaffected.
func WatchGrants(ctx context.Context, c cache.Cache, namespace string, log *slog.Logger) GrantSource {
	if c == nil {
		return nil
	}
	syncCtx, cancel := context.WithTimeout(ctx, scanListSyncTimeout)
	defer cancel()
	informer, err := c.GetInformer(syncCtx, &cwacv1alpha1.CwacOrganisationGrant{})
	if err == nil {
		_, err = informer.AddEventHandler(grantChanges{log: log}.handler())
	}
	if err != nil {
		// An informer that cannot list would retry (and log) forever.
		_ = c.RemoveInformer(ctx, &cwacv1alpha1.CwacOrganisationGrant{})
		log.Warn("organisation grants are not read (is the CwacOrganisationGrant CRD installed, and may the MCP server's role "+
			"list and watch cwacorganisationgrants?): only readers of the namespace's CwacScans are let in", "err", err)
		return nil
	}
	return GrantLister{Reader: c, Namespace: namespace}
}

// grantReadable are the tools a caller may use by organisation grant
// alone, each keeping to the caller's organisations: the issue history
// (its issues and an organisation's trend, as a tool or a resource) and a
// sector's trend when the grant gives the whole sector; and the prompts,
// which carry no figures. Every other tool reads or changes whole
// scans and needs its verb on CwacScans.
var grantReadable = map[string]bool{
	"cwac_issue_history":      true,
	"cwac_organisation_trend": true,
	"cwac_sector_trend":       true,
	"cwac_scan_changes":       true,
	trendReadName:             true,
	promptGetName:             true,
}

// errForbidden marks a caller RBAC refuses (HTTP 403 over REST).
var errForbidden = errors.New("Forbidden")

// authorizeCall decides what the call may reach: everything when the
// transport is trusted (stdio) or nothing is checked, else the caller's
// RBAC verb for the tool on CwacScans, and, for a tool in grantReadable
// that RBAC refuses, the organisations the namespace's grants give the
// caller. It sets call.reach, or refuses.
func (s *Server) authorizeCall(ctx context.Context, name string, call *callInfo) error {
	if s.cfg.Authorizer == nil || call.Transport == transportStdio {
		call.reach = orgaccess.Whole()
		return nil
	}
	err := s.cfg.Authorizer.Authorize(ctx, call.Identity, toolVerbs[name], toolResource(name), s.cfg.Namespace)
	if err == nil && toolResource(name) != resourceScans {
		// Allowed to write another resource: what the caller may read is
		// what reading the scans' history would give them.
		return s.authorizeCall(ctx, "cwac_issue_history", call)
	}
	if err == nil {
		call.reach = orgaccess.Whole()
		return nil
	}
	if !errors.Is(err, errForbidden) || !call.Identity.Reviewable() || s.cfg.Grants == nil {
		return err
	}
	if !grantReadable[name] {
		return fmt.Errorf("%w (a CwacOrganisationGrant gives only cwac_issue_history, cwac_scan_changes, cwac_organisation_trend, "+
			"cwac_sector_trend, the organisation trend resources and the prompts)", err)
	}
	grants, gerr := s.cfg.Grants.Grants(ctx)
	if gerr != nil {
		return gerr
	}
	reach := orgaccess.Granted(grants, call.Identity.User, call.Identity.Groups)
	if !reach.Any() {
		return fmt.Errorf("%w, and no CwacOrganisationGrant in namespace %s names them or their groups", err, s.cfg.Namespace)
	}
	call.reach = reach
	return nil
}
