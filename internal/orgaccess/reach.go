// Package orgaccess decides which organisations of a namespace's scans a
// caller may read. A reader of the namespace's CwacScans (Kubernetes RBAC)
// reaches every organisation; anyone else reaches what the namespace's
// CwacOrganisationGrants give their user and groups, which may be nothing.
// Every reader of results and history (the dashboard's pages and exports,
// the MCP server's tools, resources and prompts) asks a Reach before it
// shows an organisation's pages, issues, trend or files.
package orgaccess

import (
	"context"
	"errors"
	"maps"
	"slices"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// Reach is what one caller may read of one namespace. The zero Reach
// reaches nothing.
type Reach struct {
	whole         bool
	organisations map[string]bool
	sectors       map[string]bool
	namesShown    bool
}

// Whole is the reach of a namespace reader: every organisation.
func Whole() Reach { return Reach{whole: true} }

// Granted is what the grants give a user with these groups: the union of
// every grant that names the user or one of the groups.
func Granted(grants []cwacv1alpha1.CwacOrganisationGrant, user string, groups []string) Reach {
	var r Reach
	for i := range grants {
		spec := &grants[i].Spec
		if !names(spec.Subjects, user, groups) {
			continue
		}
		if r.organisations == nil {
			r.organisations, r.sectors = map[string]bool{}, map[string]bool{}
		}
		for _, o := range spec.Organisations {
			r.organisations[o] = true
		}
		for _, s := range spec.Sectors {
			r.sectors[s] = true
		}
		if spec.OtherOrganisations == cwacv1alpha1.OtherNamesShown {
			r.namesShown = true
		}
	}
	return r
}

// names reports whether subjects name the user or one of the groups.
func names(subjects []cwacv1alpha1.GrantSubject, user string, groups []string) bool {
	for _, s := range subjects {
		switch s.Kind {
		case cwacv1alpha1.GrantSubjectUser:
			if user != "" && s.Name == user {
				return true
			}
		case cwacv1alpha1.GrantSubjectGroup:
			if slices.Contains(groups, s.Name) {
				return true
			}
		}
	}
	return false
}

// IsWhole reports whether the caller reads the whole namespace.
func (r Reach) IsWhole() bool { return r.whole }

// Any reports whether the caller reaches anything at all.
func (r Reach) Any() bool { return r.whole || len(r.organisations) > 0 || len(r.sectors) > 0 }

// Covers reports whether the caller may read the organisation, which is
// in sector ("" when not known: then only a grant naming the organisation
// covers it).
func (r Reach) Covers(organisation, sector string) bool {
	if r.whole {
		return true
	}
	return r.organisations[organisation] || (sector != "" && r.sectors[sector])
}

// CoversSector reports whether the caller may read every organisation of
// the sector.
func (r Reach) CoversSector(sector string) bool { return r.whole || r.sectors[sector] }

// ShowsName reports whether a ranking may name the organisation to the
// caller: one it covers, or any when a grant says other organisations'
// names are shown.
func (r Reach) ShowsName(organisation, sector string) bool {
	return r.namesShown || r.Covers(organisation, sector)
}

// Within is the reach as the issue history's reads take it: nil for a
// namespace reader (every organisation), else the organisations and
// sectors granted, in order (none for the zero Reach: it keeps nothing).
func (r Reach) Within() *store.Within {
	if r.whole {
		return nil
	}
	return &store.Within{Organisations: slices.Sorted(maps.Keys(r.organisations)), Sectors: slices.Sorted(maps.Keys(r.sectors))}
}

// CoversRecorded reports whether the caller may read the organisation of
// namespace ns as the issue history records it (its sector is the
// history's): false for one the history does not hold, so that a refusal
// and an organisation that is not there answer alike. A namespace reader
// is covered without a lookup.
func (r Reach) CoversRecorded(ctx context.Context, st *store.Store, ns, organisation string) (bool, error) {
	if r.whole {
		return true, nil
	}
	o, err := st.Organisation(ctx, ns, organisation)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return r.Covers(o.Name, o.Sector), nil
}
