package notify

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/testutil/schema"
)

// withOwners gives the scan four organisations: Org A (owned by an address
// and a group), Org B (a group, for some pages), Org C (no owners) and
// d.example (a bare URL).
func withOwners(s *cwacv1alpha1.CwacScan) {
	s.Spec.Sites = []cwacv1alpha1.Site{
		{URL: "https://a.example/", Organisation: "Org A", Owners: []cwacv1alpha1.Owner{{Email: "Web@A.example"}, {Group: "team-a"}}},
		{URL: "https://a2.example/", Organisation: "Org A"},
		{URL: "https://b.example/", Organisation: "Org B", Owners: []cwacv1alpha1.Owner{{Group: "team-b", Pages: "https://b.example/forms"}}},
		{URL: "https://c.example/", Organisation: "Org C"},
	}
	s.Spec.URLs = []string{"https://d.example/"}
}

func routedReceiver(orgs, owners []string) cwacv1alpha1.NotificationReceiver {
	r := receiver("team", cwacv1alpha1.ReceiverWebhook, AllEvents...)
	r.Organisations, r.Owners = orgs, owners
	return r
}

func TestScanOrganisations(t *testing.T) {
	s := scan("s", complete, withOwners)
	got := scanOrganisations(s)
	want := map[string][]cwacv1alpha1.Owner{
		"Org A":     {{Email: "Web@A.example"}, {Group: "team-a"}},
		"Org B":     {{Group: "team-b", Pages: "https://b.example/forms"}},
		"Org C":     nil,
		"d.example": nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("organisations (-want +got):\n%s", diff)
	}
	if _, ok := got["Org C"]; !ok {
		t.Error("an organisation without owners is left out")
	}
}

func TestRouteOf(t *testing.T) {
	orgs := scanOrganisations(scan("s", complete, withOwners))
	for name, tc := range map[string]struct {
		orgs, owners []string
		want         routed
	}{
		"neither: every event whole":     {nil, nil, nil},
		"by name":                        {[]string{"Org C"}, nil, routed{"Org C": true}},
		"a name the scan does not cover": {[]string{"Org Z"}, nil, routed{"Org Z": true}},
		"an address, in another case":    {nil, []string{"web@a.EXAMPLE"}, routed{"Org A": true}},
		"a group":                        {nil, []string{"team-b"}, routed{"Org B": true}},
		"a group in another case":        {nil, []string{"Team-B"}, routed{}},
		"a group is not an address":      {nil, []string{"team-a@a.example"}, routed{}},
		"both add up":                    {[]string{"d.example"}, []string{"team-a", "team-b"}, routed{"Org A": true, "Org B": true, "d.example": true}},
	} {
		got := routeOf(routedReceiver(tc.orgs, tc.owners), orgs)
		if diff := cmp.Diff(tc.want, got); diff != "" || (tc.want == nil) != (got == nil) {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// TestPlanRoutes: a routed receiver is sent only the events that concern
// its organisations.
func TestPlanRoutes(t *testing.T) {
	failedScan := scan("f", failed, withOwners)
	all := scan("s", complete, withOwners, crossed, newIssues3, issues(50), orgsIncomplete("Org C"),
		orgDrops([3]string{"Org B", "90", "70"}, [3]string{"d.example", "80", "79"}))
	decided := Decide(Input{Scan: all, Previous: scan("b", complete), Compared: scan("b", complete)})
	events := func(ds []cwacv1alpha1.NotificationDelivery) []cwacv1alpha1.NotificationEvent {
		out := make([]cwacv1alpha1.NotificationEvent, 0, len(ds))
		for _, d := range ds {
			out = append(out, d.Event)
		}
		return out
	}
	for name, tc := range map[string]struct {
		d            Decision
		orgs, owners []string
		want         []cwacv1alpha1.NotificationEvent
	}{
		"unrouted: everything": {decided, nil, nil, []cwacv1alpha1.NotificationEvent{
			cwacv1alpha1.EventThresholdsCrossed, cwacv1alpha1.EventNewIssues, cwacv1alpha1.EventScoreDropped, cwacv1alpha1.EventScanIncomplete}},
		"Org A has the new issues": {decided, nil, []string{"web@a.example"}, []cwacv1alpha1.NotificationEvent{
			cwacv1alpha1.EventThresholdsCrossed, cwacv1alpha1.EventNewIssues}},
		"Org B's score fell": {decided, nil, []string{"team-b"}, []cwacv1alpha1.NotificationEvent{
			cwacv1alpha1.EventThresholdsCrossed, cwacv1alpha1.EventScoreDropped}},
		"Org C was not complete": {decided, []string{"Org C"}, nil, []cwacv1alpha1.NotificationEvent{
			cwacv1alpha1.EventThresholdsCrossed, cwacv1alpha1.EventScanIncomplete}},
		"d.example fell less than the threshold": {decided, []string{"d.example"}, nil, []cwacv1alpha1.NotificationEvent{
			cwacv1alpha1.EventThresholdsCrossed}},
		"an organisation the scan does not cover": {decided, []string{"Org Z"}, nil, nil},
		"a failure reaches its organisations": {Decide(Input{Scan: failedScan}), []string{"Org C"}, nil,
			[]cwacv1alpha1.NotificationEvent{cwacv1alpha1.EventScanFailed}},
		"and no others": {Decide(Input{Scan: failedScan}), []string{"Org Z"}, nil, nil},
	} {
		got := events(Plan(tc.d, []cwacv1alpha1.NotificationReceiver{routedReceiver(tc.orgs, tc.owners)}))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}

// TestRoutedPayloads: a routed receiver's payload lists only its
// organisations' news, names their owners and says where it was routed.
func TestRoutedPayloads(t *testing.T) {
	payload := payloadSchema(t)
	s := scan("s", complete, withOwners, newIssues3, issues(50), orgsIncomplete("Org C", "Org A"),
		orgDrops([3]string{"Org B", "90", "70"}, [3]string{"Org A", "90", "60"}))
	s.Status.Summary.Diff.ByOrganisation = append(s.Status.Summary.Diff.ByOrganisation,
		cwacv1alpha1.OrganisationDiff{Organisation: "Org C", New: 2, NewByImpact: map[string]int64{"minor": 2, "other": 9}})
	s.Status.Summary.Diff.New = 7
	d := Decide(Input{Scan: s, Previous: scan("b", complete), Compared: scan("b", complete)})
	build := func(r cwacv1alpha1.NotificationReceiver, e cwacv1alpha1.NotificationEvent) *Payload {
		t.Helper()
		p, err := Build(s, d, r, e, Options{})
		if err != nil {
			t.Fatal(err)
		}
		body, err := Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(t, payload, body); err != nil {
			t.Errorf("%s payload fails the schema: %v\n%s", e, err, body)
		}
		return p
	}
	ownersA := []OrganisationOwners{{Organisation: "Org A", Owners: []OwnerFacts{{Email: "Web@A.example"}, {Group: "team-a"}}}}
	ownersB := []OrganisationOwners{{Organisation: "Org B", Owners: []OwnerFacts{{Group: "team-b", Pages: "https://b.example/forms"}}}}

	// Routed to Org A and Org C by name: their new issues only, totalled.
	ac := routedReceiver([]string{"Org C", "Org A"}, nil)
	p := build(ac, cwacv1alpha1.EventNewIssues)
	want := &NewIssueFacts{Baseline: "base", Total: 5, ByImpact: map[string]int64{"serious": 3, "minor": 2}, Organisations: 2,
		ByOrganisation: []OrgNew{
			{Organisation: "Org A", New: 3, ByImpact: map[string]int64{"serious": 3}},
			{Organisation: "Org C", New: 2, ByImpact: map[string]int64{"minor": 2}},
		}}
	if diff := cmp.Diff(want, p.NewIssues); diff != "" {
		t.Errorf("routed new issues (-want +got):\n%s", diff)
	}
	if !slices.Equal(p.RoutedTo, []string{"Org A", "Org C"}) || !cmp.Equal(p.Owners, ownersA) || !strings.Contains(p.Title, "has 5 new issues") {
		t.Errorf("routed to %v, owners %+v, title %q", p.RoutedTo, p.Owners, p.Title)
	}
	// Unrouted: every organisation's, and the owners of those listed.
	p = build(receiver("all", cwacv1alpha1.ReceiverWebhook, AllEvents...), cwacv1alpha1.EventNewIssues)
	if p.NewIssues.Total != 7 || p.NewIssues.NewNotListed != 2 || p.NewIssues.Organisations != 2 || p.RoutedTo != nil || !cmp.Equal(p.Owners, ownersA) {
		t.Errorf("unrouted new issues %+v, routed to %v, owners %+v", p.NewIssues, p.RoutedTo, p.Owners)
	}

	// Routed by Org B's group: its fall only.
	b := routedReceiver(nil, []string{"team-b"})
	p = build(b, cwacv1alpha1.EventScoreDropped)
	if p.Score.OrganisationsDropped != 1 || len(p.Score.Organisations) != 1 || p.Score.Organisations[0].Organisation != "Org B" || !cmp.Equal(p.Owners, ownersB) {
		t.Errorf("routed score %+v, owners %+v", p.Score, p.Owners)
	}
	p = build(receiver("all", cwacv1alpha1.ReceiverWebhook, AllEvents...), cwacv1alpha1.EventScoreDropped)
	if p.Score.OrganisationsDropped != 2 || !cmp.Equal(p.Owners, append(slices.Clone(ownersB), ownersA...)) {
		t.Errorf("unrouted score %+v, owners %+v (in the order the falls are listed)", p.Score, p.Owners)
	}

	// Incomplete, routed to Org A: only its verdict, and the title counts it.
	p = build(routedReceiver([]string{"Org A"}, nil), cwacv1alpha1.EventScanIncomplete)
	if len(p.Incomplete.Organisations) != 1 || p.Incomplete.Organisations[0].Organisation != "Org A" || !strings.Contains(p.Title, "1 organisations not scanned") {
		t.Errorf("routed incomplete %+v, title %q", p.Incomplete, p.Title)
	}

	// A scan-wide event names the routed organisations' owners; unrouted,
	// every organisation's that has owners.
	p = build(b, cwacv1alpha1.EventThresholdsRecovered)
	if !slices.Equal(p.RoutedTo, []string{"Org B"}) || !cmp.Equal(p.Owners, ownersB) {
		t.Errorf("scan-wide, routed: to %v, owners %+v", p.RoutedTo, p.Owners)
	}
	p = build(receiver("all", cwacv1alpha1.ReceiverWebhook, AllEvents...), cwacv1alpha1.EventThresholdsRecovered)
	if !cmp.Equal(p.Owners, append(slices.Clone(ownersA), ownersB...)) {
		t.Errorf("scan-wide, unrouted: owners %+v", p.Owners)
	}

	// The chat messages say it to people.
	p = build(ac, cwacv1alpha1.EventNewIssues)
	lines := strings.Join(details(p), "\n")
	for _, l := range []string{"For: Org A; Org C", "Owners of Org A: Web@A.example, group team-a"} {
		if !strings.Contains(lines, l) {
			t.Errorf("chat lines lack %q:\n%s", l, lines)
		}
	}
	p = build(b, cwacv1alpha1.EventScoreDropped)
	if lines := strings.Join(details(p), "\n"); !strings.Contains(lines, "Owners of Org B: group team-b (pages under https://b.example/forms)") {
		t.Errorf("chat lines:\n%s", lines)
	}
}

// TestPayloadOwnersBounded: a scan of many owned organisations names at
// most MaxListed of them, each once.
func TestPayloadOwnersBounded(t *testing.T) {
	s := scan("s", complete)
	names := make([]string, 0, 60)
	for i := range 30 {
		org := "Org " + string(rune('A'+i%26)) + string(rune('a'+i/26))
		names = append(names, org, org)
		s.Spec.Sites = append(s.Spec.Sites, cwacv1alpha1.Site{URL: "https://x.example/", Organisation: org, Owners: []cwacv1alpha1.Owner{{Group: "g"}}})
	}
	got := ownersOf(names, scanOrganisations(s))
	if len(got) != MaxListed || got[0].Organisation != "Org Aa" || got[1].Organisation != "Org Ba" {
		t.Errorf("%d owners listed, first %+v", len(got), got[:min(2, len(got))])
	}
}
