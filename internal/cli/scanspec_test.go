package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

func ptr[T any](v T) *T { return &v }

func TestBuildScan(t *testing.T) {
	dir := t.TempDir()
	csvFile := filepath.Join(dir, "sites.csv")
	// CWAC's own base_urls format, with the BOM CWAC's CSVs carry.
	writeFile(t, csvFile, "\ufefforganisation,url,sector\nCWAC Test Org,http://127.0.0.1:8765/,Test Sector\n\"Org, Ltd\",https://example.org/a,Health\n")
	listFile := filepath.Join(dir, "urls.txt")
	writeFile(t, listFile, "# staging sites\nhttps://a.example/\n\n  https://b.example/x  \n")
	badListFile := filepath.Join(dir, "bad.txt")
	writeFile(t, badListFile, "https://a.example/\nftp://b.example/\n")
	formulaFile := filepath.Join(dir, "formula.csv")
	writeFile(t, formulaFile, "url,organisation\nhttps://a.example/,=HYPERLINK(1)\n")

	tests := []struct {
		name    string
		flags   ScanFlags
		want    cwacv1alpha1.CwacScanSpec
		wantErr string // substring; empty means success
		check   func(t *testing.T, s *cwacv1alpha1.CwacScan)
	}{
		{name: "urls", flags: ScanFlags{URLs: []string{"https://example.govt.nz/", "http://127.0.0.1:8765/"}},
			want: cwacv1alpha1.CwacScanSpec{URLs: []string{"https://example.govt.nz/", "http://127.0.0.1:8765/"}},
			check: func(t *testing.T, s *cwacv1alpha1.CwacScan) {
				if s.Name != "" || s.GenerateName != "cwac-" {
					t.Errorf("name %q generateName %q, want a generated cwac- name", s.Name, s.GenerateName)
				}
			}},
		{name: "sites with quoting and defaults", flags: ScanFlags{Sites: []string{`https://a.example/,"Org, Ltd",Health`, "https://b.example/"}},
			want: cwacv1alpha1.CwacScanSpec{Sites: []cwacv1alpha1.Site{
				{URL: "https://a.example/", Organisation: "Org, Ltd", Sector: "Health"}, {URL: "https://b.example/"}}}},
		{name: "everything", flags: ScanFlags{Name: "pr-123", URLs: []string{"https://a.example/"}, AuditName: "pr_123.x",
			Timeout: "1h30m", Threads: 4, MaxLinksPerDomain: 10, Baseline: "weekly-abc12",
			MaxCritical: ptr(int64(0)), MaxTotal: ptr(int64(50)), MaxNew: ptr(int64(0))},
			want: cwacv1alpha1.CwacScanSpec{URLs: []string{"https://a.example/"}, AuditName: "pr_123.x", Timeout: "1h30m",
				ThreadCount: 4, MaxLinksPerDomain: 10, Baseline: "weekly-abc12",
				Thresholds: &cwacv1alpha1.Thresholds{MaxTotalIssues: ptr(int64(50)), MaxNewIssues: ptr(int64(0)),
					MaxIssuesByImpact: map[string]int64{"critical": 0}}},
			check: func(t *testing.T, s *cwacv1alpha1.CwacScan) {
				if s.Name != "pr-123" || s.GenerateName != "" {
					t.Errorf("name %q generateName %q", s.Name, s.GenerateName)
				}
			}},
		{name: "http sites allowed", flags: ScanFlags{URLs: []string{"http://127.0.0.1:8765/"}, AllowHTTP: true},
			want: cwacv1alpha1.CwacScanSpec{URLs: []string{"http://127.0.0.1:8765/"},
				ConfigOverrides: map[string]apiextensionsv1.JSON{"only_allow_https": {Raw: []byte("false")}}}},
		{name: "csv file", flags: ScanFlags{URLsFile: csvFile},
			want: cwacv1alpha1.CwacScanSpec{Sites: []cwacv1alpha1.Site{
				{URL: "http://127.0.0.1:8765/", Organisation: "CWAC Test Org", Sector: "Test Sector"},
				{URL: "https://example.org/a", Organisation: "Org, Ltd", Sector: "Health"}}}},
		{name: "url list file", flags: ScanFlags{URLsFile: listFile, URLs: []string{"https://c.example/"}},
			want: cwacv1alpha1.CwacScanSpec{URLs: []string{"https://c.example/", "https://a.example/", "https://b.example/x"}}},
		{name: "no url", flags: ScanFlags{}, wantErr: "no URL to scan: give --url"},
		// A URL's form is the API server's to judge (scanInvalidError names
		// the flag): the plugin passes URLs on as given.
		{name: "urls passed on as given", flags: ScanFlags{URLs: []string{"example.org"}, Sites: []string{"ftp://a.example/,Org,Sector"}, URLsFile: badListFile},
			want: cwacv1alpha1.CwacScanSpec{URLs: []string{"example.org", "https://a.example/", "ftp://b.example/"},
				Sites: []cwacv1alpha1.Site{{URL: "ftp://a.example/", Organisation: "Org", Sector: "Sector"}}}},
		{name: "site with too many fields", flags: ScanFlags{Sites: []string{"https://a.example/,Org, Ltd,Health"}}, wantErr: "4 fields"},
		{name: "site formula", flags: ScanFlags{Sites: []string{"https://a.example/,@SUM(A1),x"}}, wantErr: "organisation \"@SUM(A1)\" may not start with"},
		{name: "sector formula after semicolon", flags: ScanFlags{Sites: []string{"https://a.example/,Org,a; =1"}}, wantErr: "sector"},
		{name: "missing file", flags: ScanFlags{URLsFile: filepath.Join(dir, "nope")}, wantErr: "--urls-file: open"},
		{name: "formula in csv", flags: ScanFlags{URLsFile: formulaFile}, wantErr: "line 2: organisation"},
		{name: "bad name", flags: ScanFlags{Name: "PR_1", URLs: []string{"https://a.example/"}}, wantErr: `--name "PR_1"`},
		{name: "bad audit name", flags: ScanFlags{AuditName: "a b", URLs: []string{"https://a.example/"}}, wantErr: "--audit-name"},
		{name: "long audit name", flags: ScanFlags{AuditName: strings.Repeat("a", 51), URLs: []string{"https://a.example/"}}, wantErr: "1-50 characters"},
		{name: "timeout not a duration", flags: ScanFlags{Timeout: "soon", URLs: []string{"https://a.example/"}}, wantErr: `--timeout "soon"`},
		{name: "timeout too short", flags: ScanFlags{Timeout: "30s", URLs: []string{"https://a.example/"}}, wantErr: "between 1m and 24h"},
		{name: "timeout too long", flags: ScanFlags{Timeout: "25h", URLs: []string{"https://a.example/"}}, wantErr: "between 1m and 24h"},
		{name: "threads", flags: ScanFlags{Threads: 17, URLs: []string{"https://a.example/"}}, wantErr: "--threads 17: must be 1-16"},
		{name: "negative threads", flags: ScanFlags{Threads: -1, URLs: []string{"https://a.example/"}}, wantErr: "--threads -1"},
		{name: "bad baseline", flags: ScanFlags{Baseline: "Weekly", URLs: []string{"https://a.example/"}}, wantErr: `--baseline "Weekly"`},
		{name: "baseline is itself", flags: ScanFlags{Name: "a", Baseline: "a", URLs: []string{"https://a.example/"}}, wantErr: "names the scan itself"},
		{name: "negative threshold", flags: ScanFlags{MaxTotal: ptr(int64(-1)), URLs: []string{"https://a.example/"}}, wantErr: "--max-total -1"},
		{name: "max-new needs baseline", flags: ScanFlags{MaxNew: ptr(int64(0)), URLs: []string{"https://a.example/"}}, wantErr: "--max-new needs --baseline"},
		{name: "too many urls", flags: ScanFlags{URLs: repeatURL(1001)}, wantErr: "too many URLs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.flags.Namespace = "team-a"
			got, err := BuildScan(tt.flags)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Spec); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
			if got.Namespace != "team-a" || got.Kind != "CwacScan" || got.APIVersion != "cwac.a11y.dev/v1alpha1" {
				t.Errorf("object meta: %s %s %s", got.APIVersion, got.Kind, got.Namespace)
			}
			if tt.check != nil {
				tt.check(t, got)
			}
		})
	}
}

func repeatURL(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "https://a.example/"
	}
	return out
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestParseURLsListLineEndings(t *testing.T) {
	for name, data := range map[string]string{
		"unix":    "https://a.example/\nhttps://b.example/\n",
		"windows": "https://a.example/\r\nhttps://b.example/\r\n",
		"old mac": "https://a.example/\rhttps://b.example/\r",
		"mixed":   "https://a.example/\r# c\r\nhttps://b.example/",
	} {
		t.Run(name, func(t *testing.T) {
			urls, sites, err := parseURLsList([]byte(data))
			if err != nil || len(sites) != 0 {
				t.Fatalf("sites %v, error %v", sites, err)
			}
			if want := []string{"https://a.example/", "https://b.example/"}; !slices.Equal(urls, want) {
				t.Fatalf("urls %q, want %q", urls, want)
			}
		})
	}
}

func TestReadURLsFileTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.txt")
	writeFile(t, path, strings.Repeat("#", maxURLsFileBytes+1))
	_, _, err := readURLsFile(path)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("error %v, want a size refusal", err)
	}
}

// FuzzParseURLsList checks that whatever a URLs file holds, the parser
// either refuses it or returns at most maxURLsPerScan URLs, each one
// trimmed line that is not a comment, or sites whose organisation and sector
// are safe in a spreadsheet (the URLs' form is the API server's to judge).
func FuzzParseURLsList(f *testing.F) {
	f.Add([]byte("\ufefforganisation,url,sector\nCWAC Test Org,http://127.0.0.1:8765/,Test Sector\n"))
	f.Add([]byte("https://a.example/\n# c\nhttp://b.example/x\n"))
	f.Add([]byte("url\n\"https://a.example/\"\n"))
	f.Add([]byte("url,organisation\nhttps://a.example/,=1\n"))
	f.Add([]byte("0\r0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		urls, sites, err := parseURLsList(data)
		if err != nil {
			return
		}
		if len(urls) > maxURLsPerScan || len(sites) > maxURLsPerScan {
			t.Fatalf("%d urls and %d sites", len(urls), len(sites))
		}
		for _, u := range urls {
			if u == "" || u != strings.TrimSpace(u) || strings.HasPrefix(u, "#") || strings.ContainsAny(u, "\r\n") {
				t.Fatalf("returned %q, not one trimmed line that is not a comment", u)
			}
		}
		for _, s := range sites {
			if _, err := newSite(s.URL, s.Organisation, s.Sector); err != nil {
				t.Fatalf("accepted bad site %+v: %v", s, err)
			}
		}
	})
}

func FuzzParseSite(f *testing.F) {
	f.Add(`https://a.example/,"Org, Ltd",Health`)
	f.Add(`https://a.example/`)
	f.Add(`"https://a.example/`)
	f.Fuzz(func(t *testing.T, s string) {
		site, err := parseSite(s)
		if err != nil {
			return
		}
		if site.URL != strings.TrimSpace(site.URL) {
			t.Fatalf("URL %q not trimmed", site.URL)
		}
		if again, err := newSite(site.URL, site.Organisation, site.Sector); err != nil || !reflect.DeepEqual(again, site) {
			t.Fatalf("returned %+v, which newSite refuses or changes: %+v, %v", site, again, err)
		}
	})
}
