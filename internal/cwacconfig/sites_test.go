package cwacconfig

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestNormalizeSites(t *testing.T) {
	got, err := NormalizeSites(
		[]string{"https://www.example.govt.nz/", "http://127.0.0.1:8765/"},
		[]Site{{URL: "https://a.example/", Organisation: "Te Tari, \"Ā\"", Sector: "Health"}, {URL: "https://www.example.govt.nz/"}},
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []Site{
		{Organisation: "www.example.govt.nz", URL: "https://www.example.govt.nz/", Sector: "unknown"},
		{Organisation: "127.0.0.1", URL: "http://127.0.0.1:8765/", Sector: "unknown"},
		{Organisation: "Te Tari, \"Ā\"", URL: "https://a.example/", Sector: "Health"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NormalizeSites (-want +got):\n%s", diff)
	}
}

func TestNormalizeSitesErrors(t *testing.T) {
	tests := []struct {
		urls []string
		want string
	}{
		{nil, "At least one URL is required"},
		{[]string{"ftp://x/"}, "Invalid URL: ftp://x/"},
		{[]string{"javascript:alert(1)"}, "Invalid URL"},
		{[]string{"/relative"}, "Invalid URL"},
		{[]string{"http:///nohost"}, "missing or malformed host"},
		{[]string{"http://public@127.0.0.1/"}, "user-info"},
		{[]string{"https://a.example/" + strings.Repeat("x", 2048)}, "longer than 2048"},
		{[]string{"https://a.example/a b"}, "white space"},
	}
	for _, tt := range tests {
		_, err := NormalizeSites(tt.urls, nil)
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tt.want)) {
			t.Errorf("NormalizeSites(%q) = %v, want %q", tt.urls, err, tt.want)
		}
	}
}

func TestWriteBaseURLCSV(t *testing.T) {
	got, err := WriteBaseURLCSV([]Site{
		{Organisation: "CWAC Test Org", URL: "http://127.0.0.1:8765/", Sector: "Test Sector"},
		{Organisation: "Comma, \"Quoted\" Org", URL: "https://a.example/?q=1,2", Sector: "Māori"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "organisation,url,sector\n" +
		"CWAC Test Org,http://127.0.0.1:8765/,Test Sector\n" +
		"\"Comma, \"\"Quoted\"\" Org\",\"https://a.example/?q=1,2\",Māori\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("CSV (-want +got):\n%s", diff)
	}
}

// FuzzBaseURLCSV checks that whatever an organisation or sector holds, the CSV
// reads back to exactly the same rows with exactly three fields each.
func FuzzBaseURLCSV(f *testing.F) {
	f.Add("Org", "Sector")
	f.Add("a,b", "\"q\"")
	f.Add("line\nbreak", "Ā ō")
	f.Add("=HYPERLINK(\"http://x\")", "\r\n")
	f.Fuzz(func(t *testing.T, org, sector string) {
		if !utf8.ValidString(org) || !utf8.ValidString(sector) {
			t.Skip()
		}
		// encoding/csv normalises \r\n inside quoted fields to \n.
		org = strings.ReplaceAll(org, "\r", "")
		sector = strings.ReplaceAll(sector, "\r", "")
		in := []Site{{Organisation: org, URL: "https://example.org/", Sector: sector}}
		data, err := WriteBaseURLCSV(in)
		if err != nil {
			t.Fatal(err)
		}
		out, err := ReadBaseURLCSV(data)
		if err != nil {
			t.Fatalf("re-reading %q: %v", data, err)
		}
		if diff := cmp.Diff(in, out); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	})
}
