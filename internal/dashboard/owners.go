package dashboard

import (
	"context"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/owners"
)

// Owners says who answers for a namespace's organisations: the owners
// declared with their sites (owners.Of over the namespace's schedules and
// scans).
type Owners interface {
	Of(ctx context.Context, namespace string) (map[string][]cwacv1alpha1.Owner, error)
}

// ownerView is one owner as pages show it.
type ownerView struct {
	Email, Group, Pages string
}

// ownersOf are the organisation's owners (those answering for the page
// only, when page is set), as pages show them; none without an Owners.
func (h *Handler) ownersOf(ctx context.Context, namespace, organisation, page string) ([]ownerView, error) {
	if h.opts.Owners == nil {
		return nil, nil
	}
	all, err := h.opts.Owners.Of(ctx, namespace)
	if err != nil {
		return nil, err
	}
	os := all[organisation]
	if page != "" {
		os = owners.ForPage(os, page)
	}
	out := make([]ownerView, 0, len(os))
	for _, o := range os {
		out = append(out, ownerView{Email: o.Email, Group: o.Group, Pages: string(o.Pages)})
	}
	return out, nil
}
