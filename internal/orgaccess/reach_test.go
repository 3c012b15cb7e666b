package orgaccess_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

func grant(name string, subjects []cwacv1alpha1.GrantSubject, orgs, sectors []string,
	names cwacv1alpha1.OtherOrganisationNames,
) cwacv1alpha1.CwacOrganisationGrant {
	return cwacv1alpha1.CwacOrganisationGrant{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "agencies"},
		Spec: cwacv1alpha1.CwacOrganisationGrantSpec{
			Subjects: subjects, Organisations: orgs, Sectors: sectors, OtherOrganisations: names,
		},
	}
}

func user(n string) cwacv1alpha1.GrantSubject {
	return cwacv1alpha1.GrantSubject{Kind: cwacv1alpha1.GrantSubjectUser, Name: n}
}

func group(n string) cwacv1alpha1.GrantSubject {
	return cwacv1alpha1.GrantSubject{Kind: cwacv1alpha1.GrantSubjectGroup, Name: n}
}

// org is an organisation and its sector, as a question to a Reach.
type org struct{ name, sector string }

func TestGranted(t *testing.T) {
	grants := []cwacv1alpha1.CwacOrganisationGrant{
		grant("health", []cwacv1alpha1.GrantSubject{user("alice@example.org"), group("health-web")},
			[]string{"Ministry of Health"}, nil, ""),
		grant("education", []cwacv1alpha1.GrantSubject{group("education-web")},
			[]string{"Ministry of Education"}, []string{"Schools"}, cwacv1alpha1.OtherNamesShown),
		// A group named like a user, and a user named like a group: the kind decides.
		grant("kinds", []cwacv1alpha1.GrantSubject{group("bob"), user("transport-web")},
			[]string{"Ministry of Transport"}, nil, cwacv1alpha1.OtherNamesHidden),
	}
	health := org{"Ministry of Health", "Public Service"}
	education := org{"Ministry of Education", "Public Service"}
	school := org{"Greenfield School", "Schools"}
	transport := org{"Ministry of Transport", "Public Service"}
	for _, tc := range []struct {
		name      string
		user      string
		groups    []string
		covers    []org
		notCovers []org
		any       bool
		names     bool
	}{
		{name: "user by name", user: "alice@example.org", covers: []org{health},
			notCovers: []org{education, school, transport}, any: true},
		{name: "group member", user: "carol", groups: []string{"health-web"}, covers: []org{health},
			notCovers: []org{education, school}, any: true},
		{name: "sector grant covers its organisations", user: "dan", groups: []string{"education-web"},
			covers: []org{education, school, {"Hillcrest School", "Schools"}}, notCovers: []org{health, {"Greenfield School", ""}},
			any: true, names: true},
		{name: "union of grants", user: "alice@example.org", groups: []string{"education-web"},
			covers: []org{health, education, school}, notCovers: []org{transport}, any: true, names: true},
		{name: "user named like a group subject", user: "bob", notCovers: []org{transport}},
		{name: "group named like a user subject", user: "erin", groups: []string{"transport-web"}, notCovers: []org{transport}},
		{name: "names are exact", user: "Alice@example.org", groups: []string{"Health-Web"}, notCovers: []org{health}},
		{name: "organisation names are exact", user: "alice@example.org", covers: []org{health},
			notCovers: []org{{"ministry of health", "Public Service"}, {"Ministry of Health ", "Public Service"}}, any: true},
		{name: "nobody", notCovers: []org{health, education, school, transport}},
		{name: "empty user never matches", user: "", groups: nil, notCovers: []org{health}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := orgaccess.Granted(grants, tc.user, tc.groups)
			if r.IsWhole() {
				t.Fatal("a grant's reach is whole")
			}
			if r.Any() != tc.any {
				t.Errorf("Any() = %v, want %v", r.Any(), tc.any)
			}
			for _, o := range tc.covers {
				if !r.Covers(o.name, o.sector) {
					t.Errorf("does not cover %q (%q)", o.name, o.sector)
				}
				if !r.ShowsName(o.name, o.sector) {
					t.Errorf("does not name %q, which it covers", o.name)
				}
			}
			for _, o := range tc.notCovers {
				if r.Covers(o.name, o.sector) {
					t.Errorf("covers %q (%q)", o.name, o.sector)
				}
				if r.ShowsName(o.name, o.sector) != tc.names {
					t.Errorf("ShowsName(%q) = %v, want %v", o.name, !tc.names, tc.names)
				}
			}
		})
	}
}

func TestGrantedSectors(t *testing.T) {
	grants := []cwacv1alpha1.CwacOrganisationGrant{
		grant("schools", []cwacv1alpha1.GrantSubject{user("u")}, nil, []string{"Schools"}, ""),
		grant("health", []cwacv1alpha1.GrantSubject{user("v")}, []string{"Ministry of Health"}, nil, ""),
	}
	if r := orgaccess.Granted(grants, "u", nil); !r.CoversSector("Schools") || r.CoversSector("Public Service") {
		t.Errorf("sector grant: CoversSector(Schools) = %v, (Public Service) = %v", r.CoversSector("Schools"), r.CoversSector("Public Service"))
	}
	// An organisation grant does not give its sector.
	if r := orgaccess.Granted(grants, "v", nil); r.CoversSector("Public Service") || r.CoversSector("") {
		t.Error("an organisation grant covers a sector")
	}
}

func TestWholeAndZero(t *testing.T) {
	w := orgaccess.Whole()
	if !w.IsWhole() || !w.Any() || !w.Covers("Anything", "") || !w.CoversSector("Any") || !w.ShowsName("Other", "") {
		t.Error("Whole does not reach everything")
	}
	var z orgaccess.Reach
	if z.IsWhole() || z.Any() || z.Covers("", "") || z.CoversSector("") || z.ShowsName("x", "y") {
		t.Error("the zero Reach reaches something")
	}
}

func TestRefusalsNameOnlyWhatTheyAreGiven(t *testing.T) {
	for _, err := range []error{orgaccess.NotCovered("this organisation"), orgaccess.WholeScanOnly("report.html")} {
		if !errors.Is(err, orgaccess.ErrNotCovered) {
			t.Errorf("%v is not ErrNotCovered", err)
		}
		if !strings.Contains(err.Error(), "CwacOrganisationGrant") || !strings.Contains(err.Error(), "get") {
			t.Errorf("%q does not say what the caller lacks", err)
		}
	}
}

func TestWithin(t *testing.T) {
	if w := orgaccess.Whole().Within(); w != nil {
		t.Errorf("a namespace reader's Within = %+v, want nil (every organisation)", w)
	}
	var z orgaccess.Reach
	if w := z.Within(); w == nil || len(w.Organisations)+len(w.Sectors) != 0 {
		t.Errorf("the zero Reach's Within = %+v, want an empty one (nothing)", w)
	}
	grants := []cwacv1alpha1.CwacOrganisationGrant{
		grant("b", []cwacv1alpha1.GrantSubject{user("u")}, []string{"Zeta", "Alpha"}, []string{"S2"}, ""),
		grant("a", []cwacv1alpha1.GrantSubject{group("g")}, []string{"Alpha", "Mid"}, []string{"S1"}, ""),
	}
	w := orgaccess.Granted(grants, "u", []string{"g"}).Within()
	if strings.Join(w.Organisations, "|") != "Alpha|Mid|Zeta" || strings.Join(w.Sectors, "|") != "S1|S2" {
		t.Errorf("Within = %+v, want the union in order", w)
	}
}

// CoversRecorded reads an organisation's sector from the history, and
// answers an organisation the history does not hold as one not covered.
func TestCoversRecorded(t *testing.T) {
	st := storetest.OpenSQLite(t)
	storetest.TwoAgencies(t, st, "agencies")
	ctx := context.Background()
	if ok, err := orgaccess.Whole().CoversRecorded(ctx, nil, "agencies", "anything"); !ok || err != nil {
		t.Errorf("a namespace reader: %v %v (no lookup: the store is nil)", ok, err)
	}
	grants := []cwacv1alpha1.CwacOrganisationGrant{
		grant("health", []cwacv1alpha1.GrantSubject{user("u")}, []string{"Ministry of Health"}, []string{"Education"}, ""),
	}
	r := orgaccess.Granted(grants, "u", nil)
	for _, tc := range []struct {
		ns, org string
		want    bool
	}{
		{"agencies", "Ministry of Health", true},
		{"agencies", "Ministry of Education", true}, // by its recorded sector
		{"agencies", "Ministry of Nothing", false},
		{"elsewhere", "Ministry of Health", false},
	} {
		if ok, err := r.CoversRecorded(ctx, st, tc.ns, tc.org); ok != tc.want || err != nil {
			t.Errorf("%s/%s: %v %v, want %v", tc.ns, tc.org, ok, err, tc.want)
		}
	}
}
