package ingest

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// TestTemplates: one rule failing on the same element HTML on several
// pages is a template with its pages and instances (one per viewport);
// an element on one page is not, and neither are rows with no HTML.
func TestTemplates(t *testing.T) {
	d := loadReal(t)
	for _, w := range []string{"320", "1280"} {
		d.add(t, axeCSV, where{"url": form, "id": "link-name", "width": w}, map[string]string{"url": home, "page_title": "Home - CWAC test site"})
		d.add(t, axeCSV, where{"url": form, "id": "link-name", "width": w}, map[string]string{"url": nolang, "page_title": "No language page - CWAC test site"})
		for _, u := range []string{home, nolang} {
			d.add(t, axeCSV, where{"url": form, "id": "link-name", "width": w}, map[string]string{"url": u, "id": "region", "html": "", "target": "/html/body/div[9]"})
		}
	}
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			st := e.Open(t)
			ingestOK(t, st, d.fs(), week(0))
			got, err := st.Templates(ctx, testNamespace, org, 10)
			if err != nil {
				t.Fatal(err)
			}
			want := []store.Template{{Audit: "axe_core_audit", Rule: "link-name", ElementHTML: `<a href="clean.html"></a>`, Pages: 3, Instances: 6}}
			if len(got) != 1 || got[0] != want[0] {
				t.Fatalf("templates %+v, want %+v", got, want)
			}
			// The next week one page lost it: the same template, fewer pages.
			d2 := d.clone()
			d2.drop(axeCSV, where{"url": nolang, "id": "link-name"})
			ingestOK(t, st, d2.fs(), week(1))
			got, err = st.Templates(ctx, testNamespace, org, 10)
			if err != nil || len(got) != 1 || got[0].Pages != 2 || got[0].Instances != 4 {
				t.Errorf("templates the next week: %+v %v", got, err)
			}
			var n int
			if err := st.DB().QueryRow("SELECT COUNT(*) FROM templates").Scan(&n); err != nil || n != 1 {
				t.Errorf("%d template rows (%v), want the one template kept across weeks", n, err)
			}
			if _, err := st.Templates(ctx, testNamespace, org, 0); err == nil {
				t.Error("limit 0 was accepted")
			}
		})
	}
}

// TestEngineVersions: axe-core's version from the help URLs and Chrome's
// from chromedriver.log when the scan does not say; what it says wins.
func TestEngineVersions(t *testing.T) {
	noLog := loadReal(t)
	delete(noLog.Files, chromeLogFile)
	linked := loadReal(t).fs()
	linked[chromeLogFile] = &fstest.MapFile{Data: []byte(`"browserVersion": "1.2.3"`), Mode: 0o777 | 1<<27} // fs.ModeSymlink
	cases := []struct {
		name  string
		fsys  fstest.MapFS
		given store.EngineVersions
		want  store.EngineVersions
	}{
		{"from the results", loadReal(t).fs(), store.EngineVersions{}, store.EngineVersions{AxeCore: "4.13", Chrome: "156.0.8078.79"}},
		{"given", loadReal(t).fs(), store.EngineVersions{CWACImageDigest: "sha256:ab", AxeCore: "4.9", Chrome: "150"},
			store.EngineVersions{CWACImageDigest: "sha256:ab", AxeCore: "4.9", Chrome: "150"}},
		{"no chromedriver log", noLog.fs(), store.EngineVersions{}, store.EngineVersions{AxeCore: "4.13"}},
		{"a link in its place", linked, store.EngineVersions{}, store.EngineVersions{AxeCore: "4.13"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := storetest.OpenSQLite(t)
			scan := week(0)
			scan.Engine = tc.given
			ingestOK(t, st, tc.fsys, scan)
			trend, err := st.OrganisationTrend(context.Background(), testNamespaces, org, "")
			if err != nil || len(trend) != 1 || trend[0].Engine != tc.want {
				t.Errorf("engine %+v (%v), want %+v", trend, err, tc.want)
			}
		})
	}
	for in, want := range map[string]string{
		"https://dequeuniversity.com/rules/axe/4.13/label?application=axeAPI": "4.13",
		"https://dequeuniversity.com/rules/axe/4.10.2/label":                  "4.10.2",
		"https://example.org/rules/axe/x/label":                               "",
		"":                                                                    "",
	} {
		if got := axeVersion(in); got != want {
			t.Errorf("axeVersion(%q) = %q, want %q", in, got, want)
		}
	}
}
