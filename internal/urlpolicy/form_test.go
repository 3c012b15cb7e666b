package urlpolicy

import (
	"context"
	"strings"
	"testing"
)

// CheckForm refuses what the CRD's pattern refuses, each with the rule that
// says why; URLPattern alone is left the cases no earlier check names.
func TestCheckForm(t *testing.T) {
	tests := []struct {
		url, rule, detail string
	}{
		{"https://example.org/", "", ""},
		{"http://example.org", "", ""},
		{"http://example.org:8080/", "", ""},
		{"http://example.org:65535/", "", ""},
		{"http://example.org:65536/", RuleHost, "invalid port"},
		{"http://example.org:8o/", RuleHost, "not a valid URL"},
		{"https://example.org:8443/a/b?c=d#e", "", ""},
		{"http://[2001:db8::1]/", "", ""},
		{"ftp://example.org/", RuleScheme, "only http and https"},
		{"/relative", RuleScheme, "only http and https"},
		{"javascript:alert(1)", RuleScheme, "only http and https"},
		{"https://user@example.org/", RuleUserInfo, "user-info"},
		{"https:///no-host", RuleHost, "missing or malformed host"},
		{"https://example.org:0/", RuleHost, "invalid port"},
		{"https://exa mple.org/", RuleHost, "not a valid URL"},
		{"https://example.org/\x7f", RuleHost, "not a valid URL"},
		{"https://example.org/a b", RuleForm, "white space"},
		{"HTTPS://example.org/", RuleForm, "in lower case"},
		{"https://example.org?q=1", RuleForm, "then nothing or a path"},
		{"https://example.org#top", RuleForm, "then nothing or a path"},
		{"https://example.org/" + strings.Repeat("a", MaxURLLength), RuleLength, "longer than 2048 characters"},
	}
	for _, tt := range tests {
		u, d := CheckForm(tt.url)
		if tt.rule == "" {
			if d != nil || u == nil || u.String() != tt.url {
				t.Errorf("CheckForm(%q) = %v, %v; want the URL parsed", tt.url, u, d)
			}
			continue
		}
		if u != nil || d == nil || d.Rule != tt.rule || d.URL != tt.url || !strings.Contains(d.Detail, tt.detail) {
			t.Errorf("CheckForm(%q) = %v, %+v; want rule %s, detail with %q", tt.url, u, d, tt.rule, tt.detail)
		}
	}
}

// A scan's own URL is held to its form; a redirect's target is held only to
// what every URL must be (a query straight after the host is an ordinary
// Location).
func TestCheckURLHoldsAScansURLToItsForm(t *testing.T) {
	p := New(Config{})
	if d := p.CheckURL(context.Background(), "https://public.example.org?q=1"); d == nil || d.Rule != RuleForm {
		t.Errorf("a scan's URL with a query straight after the host: %v, want rule %s", d, RuleForm)
	}
	if d := p.check(context.Background(), "https://public.example.org?q=1", 1); d != nil {
		t.Errorf("a redirect's target with a query straight after the host: %v, want allowed", d)
	}
}
