package scanspec

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
)

// The deadline is the scan's timeout when it is a positive duration, else
// DefaultTimeout.
func TestTimeoutBoundary(t *testing.T) {
	tests := []struct {
		timeout string
		want    time.Duration
	}{
		{"1s", time.Second},
		{"1ns", time.Nanosecond},
		{"0s", DefaultTimeout},
		{"-1s", DefaultTimeout},
		{"", DefaultTimeout},
		{"soon", DefaultTimeout},
		{"90m", 90 * time.Minute},
	}
	for _, tt := range tests {
		scan := sampleScan("nightly", 0)
		scan.Spec.Timeout = tt.timeout
		if got := Timeout(scan); got != tt.want {
			t.Errorf("Timeout(%q) = %s, want %s", tt.timeout, got, tt.want)
		}
	}
}

// Sites are the plain URLs, then the sites, with an organisation and a
// sector filled in where they have none and a repeated URL dropped.
func TestSites(t *testing.T) {
	tests := []struct {
		name    string
		urls    []string
		sites   []cwacv1alpha1.Site
		want    []cwacconfig.Site
		wantErr string
	}{
		{
			name:  "URLs, then sites, defaults filled",
			urls:  []string{"https://www.example.govt.nz/"},
			sites: []cwacv1alpha1.Site{{URL: "https://a.example.org/", Organisation: "Te Tari", Sector: "Health"}, {URL: "https://b.example.org/"}},
			want: []cwacconfig.Site{
				{URL: "https://www.example.govt.nz/", Organisation: "www.example.govt.nz", Sector: cwacconfig.DefaultSector},
				{URL: "https://a.example.org/", Organisation: "Te Tari", Sector: "Health"},
				{URL: "https://b.example.org/", Organisation: "b.example.org", Sector: cwacconfig.DefaultSector},
			},
		},
		{
			name:  "a URL given twice: the first wins",
			urls:  []string{"https://a.example.org/"},
			sites: []cwacv1alpha1.Site{{URL: "https://a.example.org/", Organisation: "Te Tari"}},
			want:  []cwacconfig.Site{{URL: "https://a.example.org/", Organisation: "a.example.org", Sector: cwacconfig.DefaultSector}},
		},
		{name: "none", wantErr: "At least one URL is required"},
		{name: "not http", sites: []cwacv1alpha1.Site{{URL: "ftp://a.example.org/"}}, wantErr: "Invalid URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scan := sampleScan("nightly", 0)
			scan.Spec.URLs, scan.Spec.Sites = tt.urls, tt.sites
			got, err := Sites(scan)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Sites = %v, %v; want an error with %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Sites (-want +got):\n%s", d)
			}
		})
	}
}
