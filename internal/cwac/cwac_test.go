package cwac

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestValidateAuditName(t *testing.T) {
	tests := []struct {
		name    string
		wantErr bool
	}{
		{"real-scan-1", false},
		{"a", false},
		{"A.b_c-9", false},
		{strings.Repeat("x", 50), false},
		{strings.Repeat("x", 51), true},
		{"", true},
		{"has space", true},
		{"../etc", true},
		{"a/b", true},
		{"..", true},
		{"naïve", true},
	}
	for _, tt := range tests {
		if err := ValidateAuditName(tt.name); (err != nil) != tt.wantErr {
			t.Errorf("ValidateAuditName(%q) = %v, wantErr %v", tt.name, err, tt.wantErr)
		}
	}
}

func TestAuditNameFrom(t *testing.T) {
	tests := []struct{ in, want string }{
		{"my-scan", "my-scan"},
		{"a.b", "a.b"},
		{strings.Repeat("a", 60), strings.Repeat("a", 50)},
		{"...", "scan"},
	}
	for _, tt := range tests {
		got := AuditNameFrom(tt.in)
		if got != tt.want {
			t.Errorf("AuditNameFrom(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if err := ValidateAuditName(got); err != nil {
			t.Errorf("AuditNameFrom(%q) gave an invalid name: %v", tt.in, err)
		}
	}
}

func TestValidatePlugins(t *testing.T) {
	if err := ValidatePlugins([]string{"axe_core_audit", "reflow_audit"}); err != nil {
		t.Fatalf("real plugins refused: %v", err)
	}
	err := ValidatePlugins([]string{"seo_audit", "axe_core_audit", "html_validation"})
	if err == nil {
		t.Fatal("unknown plugins accepted")
	}
	for _, want := range []string{"html_validation, seo_audit", "valid plugins are: axe_core_audit, language_audit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func TestParseResultsDirName(t *testing.T) {
	tests := []struct {
		in        string
		ts, audit string
		ok        bool
	}{
		{"2026-11-21_23-18-23_real-scan-1", "2026-11-21_23-18-23", "real-scan-1", true},
		{"2026-11-21_23-18-23_", "", "", false},
		{"real-scan-1", "", "", false},
		{"2026-11-21_23-18-23_a/b", "", "", false},
	}
	for _, tt := range tests {
		ts, audit, ok := ParseResultsDirName(tt.in)
		if ts != tt.ts || audit != tt.audit || ok != tt.ok {
			t.Errorf("ParseResultsDirName(%q) = %q, %q, %v; want %q, %q, %v", tt.in, ts, audit, ok, tt.ts, tt.audit, tt.ok)
		}
	}
}

func TestValidateConfigFileName(t *testing.T) {
	for _, ok := range []string{"scan.json", "real-scan-1.json"} {
		if err := ValidateConfigFileName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"configs/x.json", "", "..", "a b.json"} {
		if err := ValidateConfigFileName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestResultsDirNameRoundTrips(t *testing.T) {
	at := time.Date(2026, 11, 2, 3, 4, 5, 999, time.UTC)
	name := ResultsDirName(at, "gov-week-1")
	if name != "2026-11-02_03-04-05_gov-week-1" {
		t.Fatalf("ResultsDirName = %q", name)
	}
	ts, audit, ok := ParseResultsDirName(name)
	if !ok || ts != "2026-11-02_03-04-05" || audit != "gov-week-1" {
		t.Errorf("ParseResultsDirName(%q) = %q, %q, %v", name, ts, audit, ok)
	}
}

func TestResultsDirTime(t *testing.T) {
	auckland := time.FixedZone("NZDT", 13*3600)
	for _, tt := range []struct {
		ts   string
		loc  *time.Location
		want time.Time
		ok   bool
	}{
		{"2026-11-02_03-04-05", time.UTC, time.Date(2026, 11, 2, 3, 4, 5, 0, time.UTC), true},
		{"2026-11-02_03-04-05", auckland, time.Date(2026, 11, 1, 14, 4, 5, 0, time.UTC), true},
		{"2026-13-02_03-04-05", time.UTC, time.Time{}, false},
		{"2026-11-02 03:04:05", time.UTC, time.Time{}, false},
	} {
		got, err := ResultsDirTime(tt.ts, tt.loc)
		if (err == nil) != tt.ok || !got.Equal(tt.want) {
			t.Errorf("ResultsDirTime(%q, %s) = %v, %v; want %v (ok %v)", tt.ts, tt.loc, got, err, tt.want, tt.ok)
		}
	}
}

// The keys the runner refuses in a scan's overrides are owned keys, and
// the owned keys are the spec's four, the runner's two and the image's
// three (its browser and the paths of its browser and driver); of a
// plugin's settings, its class.
func TestOwnedConfigKeys(t *testing.T) {
	want := []string{"audit_name", "max_links_per_domain", "thread_count", "viewport_sizes", "base_urls_visit_path", "base_urls_nohead_path",
		"browser", "chrome_binary_location", "chrome_driver_location"}
	if !slices.Equal(OwnedConfigKeys, want) {
		t.Errorf("OwnedConfigKeys = %q, want %q", OwnedConfigKeys, want)
	}
	if !slices.Equal(RunnerConfigKeys, want[4:6]) {
		t.Errorf("RunnerConfigKeys = %q, want %q", RunnerConfigKeys, want[4:6])
	}
	if !slices.Equal(ImageConfigKeys, want[6:]) {
		t.Errorf("ImageConfigKeys = %q, want %q", ImageConfigKeys, want[6:])
	}
	if !slices.Equal(OwnedPluginKeys, []string{"class_name"}) || KeyAuditPlugins != "audit_plugins" {
		t.Errorf("OwnedPluginKeys = %q under %q, want [class_name] under audit_plugins", OwnedPluginKeys, KeyAuditPlugins)
	}
}
