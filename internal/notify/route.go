package notify

import (
	"slices"
	"strings"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/owners"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// scanOrganisations are the organisations a scan's sites name (spec.urls
// are their own hosts' organisations), each with the owners the scan
// declares for it.
func scanOrganisations(s *cwacv1alpha1.CwacScan) map[string][]cwacv1alpha1.Owner {
	sites := slices.Clone(s.Spec.Sites)
	for _, u := range s.Spec.URLs {
		sites = append(sites, cwacv1alpha1.Site{URL: u})
	}
	// Of keeps every organisation a site names, owners or not.
	return owners.Of([]owners.Declaration{{Sites: sites}})
}

// routed is the set of organisations a receiver is routed, or nil for a
// receiver without organisations or owners (it gets every event whole).
type routed map[string]bool

// routeOf is the receiver's organisations: those it names, and those of
// the scan whose owners include one of its owners (an address compared
// without case, a group exactly).
func routeOf(r cwacv1alpha1.NotificationReceiver, orgs map[string][]cwacv1alpha1.Owner) routed {
	if len(r.Organisations) == 0 && len(r.Owners) == 0 {
		return nil
	}
	set := routed{}
	for _, o := range r.Organisations {
		set[o] = true
	}
	for org, os := range orgs {
		for _, o := range os {
			if slices.ContainsFunc(r.Owners, func(want string) bool {
				return (o.Email != "" && strings.EqualFold(o.Email, want)) || (o.Group != "" && o.Group == want)
			}) {
				set[org] = true
			}
		}
	}
	return set
}

// has reports whether the route takes org: always when unrouted.
func (rt routed) has(org string) bool { return rt == nil || rt[org] }

// concerns reports whether an event raised by the scan concerns the
// route: the organisation-level events when one of its organisations has
// the news, the scan-wide events when the scan covers one of them.
func (rt routed) concerns(d Decision, e cwacv1alpha1.NotificationEvent, threshold int32) bool {
	if rt == nil {
		return true
	}
	switch e {
	case cwacv1alpha1.EventNewIssues:
		return slices.ContainsFunc(d.Facts.NewByOrganisation, func(o cwacv1alpha1.OrganisationDiff) bool { return o.New > 0 && rt[o.Organisation] })
	case cwacv1alpha1.EventScoreDropped:
		return slices.ContainsFunc(d.Facts.OrganisationsDroppedOver(threshold), func(o OrganisationDrop) bool { return rt[o.Organisation] })
	case cwacv1alpha1.EventScanIncomplete:
		return slices.ContainsFunc(d.Facts.Organisations, func(o cwacv1alpha1.OrganisationCompleteness) bool { return rt[o.Organisation] })
	}
	for org := range d.Facts.Owners {
		if rt[org] {
			return true
		}
	}
	return false
}

// OrganisationOwners are one organisation's owners, as a payload names
// them so that whoever receives it can pass it on to them.
type OrganisationOwners struct {
	Organisation string       `json:"organisation"`
	Owners       []OwnerFacts `json:"owners"`
}

// OwnerFacts are one owner: an email address or a group, and the pages it
// answers for when not the whole organisation.
type OwnerFacts struct {
	Email string `json:"email,omitempty"`
	Group string `json:"group,omitempty"`
	Pages string `json:"pages,omitempty"`
}

// ownersOf are the owners of the organisations listed, in that order, of
// those that have owners, at most MaxListed.
func ownersOf(orgs []string, all map[string][]cwacv1alpha1.Owner) []OrganisationOwners {
	var out []OrganisationOwners
	for _, org := range orgs {
		os := all[org]
		if len(os) == 0 || len(out) == MaxListed || slices.ContainsFunc(out, func(o OrganisationOwners) bool { return o.Organisation == org }) {
			continue
		}
		entry := OrganisationOwners{Organisation: textcap.Head(org, maxNameBytes)}
		for _, o := range os {
			entry.Owners = append(entry.Owners, OwnerFacts{Email: o.Email, Group: textcap.Head(o.Group, maxNameBytes),
				Pages: textcap.Head(string(o.Pages), urlpolicy.MaxURLLength)})
		}
		out = append(out, entry)
	}
	return out
}

// routedOrganisations are the scan's organisations the route takes, in
// name order: the organisations a scan-wide event concerns.
func (rt routed) organisations(all map[string][]cwacv1alpha1.Owner) []string {
	var out []string
	for org := range all {
		if rt.has(org) {
			out = append(out, org)
		}
	}
	slices.Sort(out)
	return out
}
