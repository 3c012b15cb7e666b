package results

import (
	"context"
	"testing"
	"testing/fstest"
)

// FuzzSignals feeds the signals' CSVs any content: the builder never
// fails or panics, and keeps within its bounds.
func FuzzSignals(f *testing.F) {
	f.Add("\ufefforganisation,base_url,url,id,html,viewport_size,num_issues,impact\r\nO,b,u,r,<a>,\"{'width': 1, 'height': 2}\",1,serious\r\n",
		"organisation,base_url,url,page_title\r\nO,b,u,\r\nO,b,v,T\r\nO,b,w,T\r\n", "base_url,parent_url,url,status_code\r\nb,b,x,404.0\r\n",
		"organisation,base_url,url,flesch_kincaid_gl,smog_gl\r\nO,b,u,NaN,1\r\nO,b,v,5,7\r\n")
	f.Fuzz(func(t *testing.T, axe, titles, responses, language string) {
		fsys := fstest.MapFS{
			AxeCoreAuditFile: {Data: []byte(axe)}, TitleAuditFile: {Data: []byte(titles)},
			UnexpectedCodeFile: {Data: []byte(responses)}, LanguageAuditFile: {Data: []byte(language)},
		}
		b := NewSignalsBuilder()
		for _, name := range []string{AxeCoreAuditFile, TitleAuditFile, UnexpectedCodeFile, LanguageAuditFile} {
			_ = WalkNamed(context.Background(), fsys, []string{name}, b) // a file that does not parse stops there
		}
		s := b.Signals(-1)
		if s.Templates != nil && (int64(len(s.Templates.Issues)) > s.Templates.TemplateIssues || len(s.Templates.Issues) > MaxSignalItems) {
			t.Fatalf("templates: %d listed of %d", len(s.Templates.Issues), s.Templates.TemplateIssues)
		}
		if ti := s.Titles; ti != nil && (ti.MissingOrEmpty+ti.PagesWithDuplicateTitle > ti.Pages || int64(len(ti.Missing)) > ti.MissingOrEmpty) {
			t.Fatalf("titles: %+v", ti)
		}
		if r := s.Responses; r != nil && int64(len(r.List)) > r.Responses {
			t.Fatalf("responses: %d listed of %d", len(r.List), r.Responses)
		}
		if r := s.Readability; r != nil {
			for _, o := range r.ByOrganisation {
				if o.FleschKincaid.Median > o.FleschKincaid.Max || o.SMOG.Median > o.SMOG.Max {
					t.Fatalf("readability: %+v", o)
				}
			}
		}
	})
}
