// Package owners says who answers for an organisation's findings: the
// owners declared with its sites in the namespace's schedules and scans.
// The newest object that names an organisation's sites says who its
// owners are, so that removing an owner from a schedule takes effect
// without deleting old scans. The package is pure.
package owners

import (
	"cmp"
	"slices"
	"strings"
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
	"github.com/a11y-dev/cwac-operator/internal/decision"
)

// Declaration is one object's sites: a schedule's scan template, or a
// scan's spec, made at Made.
type Declaration struct {
	Made  time.Time
	Sites []cwacv1alpha1.Site
}

// Of is each organisation's owners by the newest declaration naming it
// (ties: the later in the list). Owners appear once each, in the order
// the declaration's sites give them.
func Of(decls []Declaration) map[string][]cwacv1alpha1.Owner {
	order := make([]int, len(decls))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return decls[a].Made.Compare(decls[b].Made) })
	out := map[string][]cwacv1alpha1.Owner{}
	for _, i := range order {
		// A newer declaration replaces the organisation's owners whole:
		// collect its sites' owners first.
		mine := map[string][]cwacv1alpha1.Owner{}
		for _, s := range decls[i].Sites {
			if org, ok := Organisation(s); ok {
				mine[org] = appendNew(mine[org], s.Owners...)
			}
		}
		for org, os := range mine {
			out[org] = os
		}
	}
	return out
}

// Organisation is the organisation a site belongs to, with CWAC's
// defaults as the scan's own rows get them (cwacconfig.NormalizeSites:
// the URL's host when none is named); false for a URL no scan could run
// (the API server refuses those).
func Organisation(s cwacv1alpha1.Site) (string, bool) {
	rows, err := cwacconfig.NormalizeSites(nil, []cwacconfig.Site{{URL: s.URL, Organisation: s.Organisation, Sector: s.Sector}})
	if err != nil {
		return "", false
	}
	return rows[0].Organisation, true
}

func appendNew(list []cwacv1alpha1.Owner, more ...cwacv1alpha1.Owner) []cwacv1alpha1.Owner {
	for _, o := range more {
		if !slices.Contains(list, o) {
			list = append(list, o)
		}
	}
	return list
}

// ForPage are the owners who answer for the page: those of the whole
// organisation and those whose page prefix covers it (at a path boundary,
// as decisions' pages do).
func ForPage(owners []cwacv1alpha1.Owner, page string) []cwacv1alpha1.Owner {
	var out []cwacv1alpha1.Owner
	for _, o := range owners {
		if o.Pages == "" || decision.UnderPages(page, string(o.Pages)) {
			out = append(out, o)
		}
	}
	return out
}

// Recipients are the email owners of the organisations (all of owners' when
// only is empty, else only those listed), each with the organisations it
// owns in name order; addresses compare without case. The addresses come
// sorted.
func Recipients(owners map[string][]cwacv1alpha1.Owner, only []string) []Recipient {
	byEmail := map[string]*Recipient{}
	for org, os := range owners {
		if len(only) > 0 && !slices.Contains(only, org) {
			continue
		}
		for _, o := range os {
			if o.Email == "" {
				continue
			}
			key := strings.ToLower(o.Email)
			r := byEmail[key]
			if r == nil {
				r = &Recipient{Email: o.Email}
				byEmail[key] = r
			}
			if !slices.Contains(r.Organisations, org) {
				r.Organisations = append(r.Organisations, org)
			}
		}
	}
	out := make([]Recipient, 0, len(byEmail))
	for _, r := range byEmail {
		slices.Sort(r.Organisations)
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Recipient) int { return cmp.Compare(strings.ToLower(a.Email), strings.ToLower(b.Email)) })
	return out
}

// Recipient is one address and the organisations it owns.
type Recipient struct {
	Email         string
	Organisations []string
}

// Declarations are the sites of a namespace's schedules and scans as Of
// reads them: a schedule's as it stands now (newer than any scan it
// made), a scan's as of when it was made.
func Declarations(schedules []cwacv1alpha1.CwacScanSchedule, scans []cwacv1alpha1.CwacScan, now time.Time) []Declaration {
	decls := make([]Declaration, 0, len(schedules)+len(scans))
	for i := range schedules {
		decls = append(decls, Declaration{Made: now, Sites: schedules[i].Spec.ScanTemplate.Spec.Sites})
	}
	for i := range scans {
		decls = append(decls, Declaration{Made: scans[i].CreationTimestamp.Time, Sites: scans[i].Spec.Sites})
	}
	return decls
}
