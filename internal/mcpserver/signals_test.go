package mcpserver

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// A summary.json a scan pod wrote with long lists and long texts is cut
// for the answer, and says so.
func TestCapSignals(t *testing.T) {
	long := "http://o/" + strings.Repeat("x", 5000)
	s := &results.Signals{
		Templates: &results.TemplateSignals{Issues: make([]results.TemplateIssue, 30)},
		Titles:    &results.TitleSignals{Duplicates: []results.DuplicateTitle{{URLs: []string{long, long, long, long, long, long, long}}}},
		Responses: &results.ResponseSignals{List: []results.BrokenResponse{{URL: long}}, ByOrganisation: make([]results.OrganisationResponses, 60)},
	}
	s.Templates.Issues[0].HTML = strings.Repeat("<", 5000)
	note := capSignals(s)
	if len(s.Templates.Issues) != results.SummarySignalItems || len(s.Templates.Issues[0].HTML) > maxSignalSummaryTextBytes+8 ||
		len(s.Titles.Duplicates[0].URLs) != results.MaxDuplicateTitleURLs || len(s.Titles.Duplicates[0].URLs[0]) > maxSignalSummaryURLBytes+8 ||
		len(s.Responses.List[0].URL) > maxSignalSummaryURLBytes+8 || len(s.Responses.ByOrganisation) != maxSummaryOrganisation {
		t.Errorf("not cut: %d issues, %d URLs, %d organisations", len(s.Templates.Issues), len(s.Titles.Duplicates[0].URLs), len(s.Responses.ByOrganisation))
	}
	if !strings.Contains(note, "10 of 30 template issues") || !strings.Contains(note, "50 of 60 organisations' broken responses") {
		t.Errorf("note = %q", note)
	}
	if capSignals(nil) != "" || capSignals(&results.Signals{}) != "" {
		t.Error("nothing to cut, yet a note")
	}
}

// A summary recomputed from the CSVs carries the signals, as summary.json does.
func TestSummarySignalsOfCSVs(t *testing.T) {
	s := summarySignals(context.Background(), os.DirFS("../results/testdata/signals-scan"))
	if s == nil || s.Templates.TemplateIssues != 4 || s.Titles.MissingOrEmpty != 1 || s.Responses.Responses != 4 || s.Readability.Pages != 4 {
		t.Fatalf("signals = %+v", s)
	}
	if summarySignals(context.Background(), os.DirFS(t.TempDir())) != nil {
		t.Error("signals of an empty directory")
	}
}

func TestSignalsPage(t *testing.T) {
	s := &Server{cfg: Config{DefaultResults: 2, MaxResults: 10, MaxResponseBytes: signalsAnswerReserve + 100}}
	size := func(int) int { return 40 }
	from, to, page := s.signalsPage(mcpapi.SignalsInput{ScanID: "x"}, 5, size)
	if from != 0 || to != 2 || page.Returned != 2 || page.Truncated || !strings.Contains(page.Note, "use offset=2") {
		t.Errorf("default limit: %d-%d %+v", from, to, page)
	}
	from, to, page = s.signalsPage(mcpapi.SignalsInput{Limit: 5, Offset: 1}, 5, size)
	if from != 1 || to != 3 || !page.Truncated || !strings.Contains(page.Note, "Response capped") {
		t.Errorf("byte cap: %d-%d %+v", from, to, page)
	}
	from, to, page = s.signalsPage(mcpapi.SignalsInput{Offset: 9}, 5, size)
	if from != 5 || to != 5 || page.Returned != 0 || page.Note != "" {
		t.Errorf("past the end: %d-%d %+v", from, to, page)
	}
	for _, in := range []mcpapi.SignalsInput{{Limit: 11}, {Limit: -1}, {Offset: -1}, {Organisation: strings.Repeat("o", 1025)}} {
		if err := s.checkSignalsInput(in); err == nil {
			t.Errorf("%+v accepted", in)
		}
	}
}
