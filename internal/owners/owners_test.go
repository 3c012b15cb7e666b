package owners

import (
	"reflect"
	"testing"
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

func TestOf(t *testing.T) {
	web := cwacv1alpha1.Owner{Email: "web@health.example"}
	news := cwacv1alpha1.Owner{Email: "news@health.example", Pages: "https://health.example/news"}
	team := cwacv1alpha1.Owner{Group: "health-web"}
	old := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	site := func(url, org string, os ...cwacv1alpha1.Owner) cwacv1alpha1.Site {
		return cwacv1alpha1.Site{URL: url, Organisation: org, Owners: os}
	}
	for _, c := range []struct {
		name  string
		decls []Declaration
		want  map[string][]cwacv1alpha1.Owner
	}{
		{"none", nil, map[string][]cwacv1alpha1.Owner{}},
		{"an organisation's sites together, each owner once", []Declaration{{Made: old, Sites: []cwacv1alpha1.Site{
			site("https://health.example/", "Health", web, team), site("https://health.example/news", "Health", news, web)}}},
			map[string][]cwacv1alpha1.Owner{"Health": {web, team, news}}},
		{"the newest declaration replaces the owners whole", []Declaration{
			{Made: old.Add(time.Hour), Sites: []cwacv1alpha1.Site{site("https://health.example/", "Health", team)}},
			{Made: old, Sites: []cwacv1alpha1.Site{site("https://health.example/", "Health", web, news)}}},
			map[string][]cwacv1alpha1.Owner{"Health": {team}}},
		{"a newer declaration without owners removes them", []Declaration{
			{Made: old, Sites: []cwacv1alpha1.Site{site("https://health.example/", "Health", web)}},
			{Made: old.Add(time.Hour), Sites: []cwacv1alpha1.Site{site("https://health.example/", "Health")}}},
			map[string][]cwacv1alpha1.Owner{"Health": nil}},
		// As the scan's rows name it (cwacconfig.NormalizeSites): the host
		// without its port, also for a name of spaces.
		{"a site without an organisation is its host's", []Declaration{{Made: old, Sites: []cwacv1alpha1.Site{
			site("https://Health.example:8443/a", "", web), site("https://edu.example/", "  ", team)}}},
			map[string][]cwacv1alpha1.Owner{"Health.example": {web}, "edu.example": {team}}},
		{"others are left alone", []Declaration{
			{Made: old, Sites: []cwacv1alpha1.Site{site("https://health.example/", "Health", web), site("https://edu.example/", "Education", team)}},
			{Made: old.Add(time.Hour), Sites: []cwacv1alpha1.Site{site("https://health.example/", "Health", news)}}},
			map[string][]cwacv1alpha1.Owner{"Health": {news}, "Education": {team}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Of(c.decls); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestForPage(t *testing.T) {
	web := cwacv1alpha1.Owner{Email: "web@health.example"}
	news := cwacv1alpha1.Owner{Email: "news@health.example", Pages: "https://health.example/news"}
	all := []cwacv1alpha1.Owner{web, news}
	for page, want := range map[string][]cwacv1alpha1.Owner{
		"https://health.example/":            {web},
		"https://health.example/news":        {web, news},
		"https://HEALTH.example:443/news/a":  {web, news},
		"https://health.example/newsletter":  {web},
		"https://health.example/news?page=2": {web, news},
	} {
		if got := ForPage(all, page); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, want %+v", page, got, want)
		}
	}
}

func TestRecipients(t *testing.T) {
	owners := map[string][]cwacv1alpha1.Owner{
		"Health":    {{Email: "web@gov.example"}, {Group: "health-web"}, {Email: "news@health.example", Pages: "https://health.example/news"}},
		"Education": {{Email: "Web@Gov.example"}},
		"Transport": {{Group: "transport"}},
	}
	want := []Recipient{{Email: "news@health.example", Organisations: []string{"Health"}},
		{Email: "web@gov.example", Organisations: []string{"Education", "Health"}}}
	got := Recipients(owners, nil)
	if len(got) != 2 || got[0].Email != want[0].Email || !reflect.DeepEqual(got[0].Organisations, want[0].Organisations) ||
		!reflect.DeepEqual(got[1].Organisations, want[1].Organisations) {
		t.Errorf("got %+v, want %+v (one address whatever its case, groups never mailed)", got, want)
	}
	if got := Recipients(owners, []string{"Education", "Transport"}); len(got) != 1 || !reflect.DeepEqual(got[0].Organisations, []string{"Education"}) {
		t.Errorf("only Education and Transport: got %+v", got)
	}
}

func TestDeclarations(t *testing.T) {
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	made := now.Add(-time.Hour)
	site := cwacv1alpha1.Site{URL: "https://health.example/", Organisation: "Health", Owners: []cwacv1alpha1.Owner{{Email: "web@health.example"}}}
	sched := cwacv1alpha1.CwacScanSchedule{}
	sched.Spec.ScanTemplate.Spec.Sites = []cwacv1alpha1.Site{site}
	scan := cwacv1alpha1.CwacScan{}
	scan.CreationTimestamp.Time = made
	scan.Spec.Sites = []cwacv1alpha1.Site{{URL: "https://edu.example/", Organisation: "Education"}}
	got := Declarations([]cwacv1alpha1.CwacScanSchedule{sched}, []cwacv1alpha1.CwacScan{scan}, now)
	if len(got) != 2 || !got[0].Made.Equal(now) || got[0].Sites[0].Organisation != "Health" || !got[1].Made.Equal(made) ||
		got[1].Sites[0].Organisation != "Education" {
		t.Errorf("got %+v: want the schedule's sites as of now, the scan's as of when it was made", got)
	}
}
