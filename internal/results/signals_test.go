package results

import (
	"context"
	"os"
	"reflect"
	"testing"
)

const signalsScan = "testdata/signals-scan"

func readSignals(t *testing.T, dir string, limit int) *Signals {
	t.Helper()
	b := NewSignalsBuilder()
	if err := WalkNamed(context.Background(), os.DirFS(dir), SignalFiles, b); err != nil {
		t.Fatal(err)
	}
	return b.Signals(limit)
}

func TestTemplatesOfSignalsScan(t *testing.T) {
	tpl := readSignals(t, signalsScan, -1).Templates
	if tpl == nil {
		t.Fatal("no templates")
	}
	// The header link on Alpha's 4 pages, at two viewports (CWAC's groups
	// are per viewport), then the contrast on 2 pages with 3 instances;
	// the image-alt of /news alone is no template issue.
	want := []struct {
		rule, viewport string
		pages, inst    int64
	}{
		{"link-name", "1280x800", 4, 4}, {"link-name", "320x450", 4, 4},
		{"color-contrast", "1280x800", 2, 3}, {"color-contrast", "320x450", 2, 3},
	}
	if len(tpl.Issues) != len(want) || tpl.TemplateIssues != 4 || tpl.Instances != 14 {
		t.Fatalf("template issues = %d (%d instances), listed %+v", tpl.TemplateIssues, tpl.Instances, tpl.Issues)
	}
	for i, w := range want {
		got := tpl.Issues[i]
		if got.RuleID != w.rule || got.Viewport != w.viewport || got.Pages != w.pages || got.Instances != w.inst || got.Organisation != "Alpha Ministry" {
			t.Errorf("issue %d = %+v, want %+v", i, got, w)
		}
	}
	if tpl.Issues[0].ExampleURL != "http://alpha.example/" || tpl.Issues[0].HTML != `<a href="/" class="logo"></a>` || tpl.Issues[0].Impact != "serious" {
		t.Errorf("first issue = %+v", tpl.Issues[0])
	}
	wantOrgs := []OrganisationTemplates{{Organisation: "Alpha Ministry", TemplateIssues: 4, Instances: 14, MostPages: 4}}
	if !reflect.DeepEqual(tpl.ByOrganisation, wantOrgs) {
		t.Errorf("by organisation = %+v", tpl.ByOrganisation)
	}
	if got := readSignals(t, signalsScan, 1).Templates.Issues; len(got) != 1 || got[0].RuleID != "link-name" {
		t.Errorf("limit 1 kept %+v", got)
	}
}

func TestTitlesOfSignalsScan(t *testing.T) {
	ti := readSignals(t, signalsScan, -1).Titles
	if ti == nil {
		t.Fatal("no titles")
	}
	if ti.Pages != 6 || ti.MissingOrEmpty != 1 || ti.DuplicateTitles != 1 || ti.PagesWithDuplicateTitle != 3 {
		t.Errorf("totals = %+v", ti)
	}
	wantOrgs := []OrganisationTitles{
		{Organisation: "Alpha Ministry", Pages: 4, MissingOrEmpty: 1, DuplicateTitles: 1, PagesWithDuplicateTitle: 3},
		{Organisation: "Beta Council", Pages: 2},
	}
	if !reflect.DeepEqual(ti.ByOrganisation, wantOrgs) {
		t.Errorf("by organisation = %+v", ti.ByOrganisation)
	}
	wantMissing := []PageRef{{Organisation: "Alpha Ministry", BaseURL: "http://alpha.example/", URL: "http://alpha.example/news"}}
	if !reflect.DeepEqual(ti.Missing, wantMissing) {
		t.Errorf("missing = %+v", ti.Missing)
	}
	wantDup := []DuplicateTitle{{Organisation: "Alpha Ministry", BaseURL: "http://alpha.example/", Title: "Alpha Ministry", Pages: 3,
		URLs: []string{"http://alpha.example/", "http://alpha.example/about", "http://alpha.example/contact"}}}
	if !reflect.DeepEqual(ti.Duplicates, wantDup) {
		t.Errorf("duplicates = %+v", ti.Duplicates)
	}
}

func TestResponsesOfSignalsScan(t *testing.T) {
	re := readSignals(t, signalsScan, -1).Responses
	if re == nil {
		t.Fatal("no responses")
	}
	if re.Responses != 4 || !reflect.DeepEqual(re.ByStatus, map[string]int64{"404": 2, "500": 1, "403": 1}) {
		t.Errorf("totals = %d %v", re.Responses, re.ByStatus)
	}
	wantOrgs := []OrganisationResponses{
		{Organisation: "Alpha Ministry", Responses: 1, ByStatus: map[string]int64{"404": 1}},
		{Organisation: "Beta Council", Responses: 2, ByStatus: map[string]int64{"404": 1, "500": 1}},
		// Gamma has no page: its organisation comes from pages_scanned.csv.
		{Organisation: "Gamma Agency", Responses: 1, ByStatus: map[string]int64{"403": 1}},
	}
	if !reflect.DeepEqual(re.ByOrganisation, wantOrgs) {
		t.Errorf("by organisation = %+v", re.ByOrganisation)
	}
	want := BrokenResponse{Organisation: "Beta Council", BaseURL: "http://beta.example/", URL: "http://beta.example/err", Status: "500",
		LinkedFrom: "http://beta.example/x"}
	if len(re.List) != 4 || re.List[2] != want || re.List[0].Organisation != "Alpha Ministry" || re.List[3].Organisation != "Gamma Agency" {
		t.Errorf("list = %+v", re.List)
	}
}

func TestReadabilityOfSignalsScan(t *testing.T) {
	rd := readSignals(t, signalsScan, -1).Readability
	if rd == nil {
		t.Fatal("no readability")
	}
	if rd.Pages != 4 || len(rd.List) != 4 || rd.List[0].URL != "http://alpha.example/about" || rd.List[0].FleschKincaidGrade != 12 ||
		rd.List[0].Sentences != 12 || rd.List[0].WordsPerSentence != 14.25 || rd.List[0].Title != "Alpha Ministry" {
		t.Errorf("pages = %d, list = %+v", rd.Pages, rd.List)
	}
	wantOrgs := []OrganisationReadability{
		{Organisation: "Alpha Ministry", Pages: 3, FleschKincaid: GradeStats{Median: 8, Mean: 8.67, Max: 12}, SMOG: GradeStats{Median: 10, Mean: 10.67, Max: 13}},
		{Organisation: "Beta Council", Pages: 1, FleschKincaid: GradeStats{Median: 10.5, Mean: 10.5, Max: 10.5},
			SMOG: GradeStats{Median: 11.5, Mean: 11.5, Max: 11.5}},
	}
	if !reflect.DeepEqual(rd.ByOrganisation, wantOrgs) {
		t.Errorf("by organisation = %+v", rd.ByOrganisation)
	}
}

// The real scan: no template issue (every group is on one page), four
// titled pages, one 404, one page measured.
func TestSignalsOfRealScan(t *testing.T) {
	s := readSignals(t, realScan, -1)
	if s.Templates == nil || s.Templates.TemplateIssues != 0 || len(s.Templates.Issues) != 0 || s.Templates.ByOrganisation == nil {
		t.Errorf("templates = %+v", s.Templates)
	}
	if s.Titles == nil || s.Titles.Pages != 4 || s.Titles.MissingOrEmpty != 0 || s.Titles.DuplicateTitles != 0 {
		t.Errorf("titles = %+v", s.Titles)
	}
	want := []BrokenResponse{{Organisation: "CWAC Test Org", BaseURL: "http://127.0.0.1:8765/", URL: "http://127.0.0.1:8765/missing.html",
		Status: "404", LinkedFrom: "http://127.0.0.1:8765/"}}
	if s.Responses == nil || !reflect.DeepEqual(s.Responses.List, want) {
		t.Errorf("responses = %+v", s.Responses)
	}
	if r := s.Readability; r == nil || r.Pages != 1 || r.ByOrganisation[0].FleschKincaid.Median != 5.25 || r.ByOrganisation[0].SMOG.Median != 8.11 {
		t.Errorf("readability = %+v", r)
	}
}

func TestSignalsAbsentWithoutTheirFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/"+AuditLogFile, []byte("\ufefforganisation,base_url,url,sector\r\nO,http://o/,http://o/,S\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := readSignals(t, dir, -1)
	if s.Templates != nil || s.Titles != nil || s.Responses != nil || s.Readability != nil {
		t.Errorf("signals of no file: %+v", s)
	}
}
