package mcpserver

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestProtectedResourceCheck(t *testing.T) {
	for _, tc := range []struct {
		resource, issuer, want string
	}{
		{"https://cwac.example.org/mcp", "https://id.example.org", ""},
		{"http://127.0.0.1:8090/mcp", "http://localhost:5556", ""},
		{"http://cwac.example.org/mcp", "https://id.example.org", "must be https"},
		{"https://cwac.example.org/mcp", "http://id.example.org", "must be https"},
		{"https://u:p@cwac.example.org/mcp", "https://id.example.org", "without user information"},
		{"https://cwac.example.org/mcp?x=1", "https://id.example.org", "query or fragment"},
		{"https://cwac.example.org/mcp#f", "https://id.example.org", "query or fragment"},
		{"/mcp", "https://id.example.org", "not an absolute URL"},
		{"https://cwac.example.org/mcp", "", "not an absolute URL"},
	} {
		err := ProtectedResource{Resource: tc.resource, Issuer: tc.issuer}.Check()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Check(%q, %q) = %v, want %q", tc.resource, tc.issuer, err, tc.want)
		}
	}
}

func TestProtectedResourceMetadataURL(t *testing.T) {
	for resource, want := range map[string]string{
		"https://cwac.example.org/mcp":  "https://cwac.example.org/.well-known/oauth-protected-resource/mcp",
		"https://cwac.example.org/mcp/": "https://cwac.example.org/.well-known/oauth-protected-resource/mcp",
		"https://cwac.example.org":      "https://cwac.example.org/.well-known/oauth-protected-resource",
		"http://127.0.0.1:8090/a b/mcp": "http://127.0.0.1:8090/.well-known/oauth-protected-resource/a%20b/mcp",
	} {
		if got := (ProtectedResource{Resource: resource}).MetadataURL(); got != want {
			t.Errorf("MetadataURL(%q) = %q, want %q", resource, got, want)
		}
	}
	if got := (*ProtectedResource)(nil).challenge(); got != `Bearer realm="cwac-operator"` {
		t.Errorf("challenge without a resource: %q", got)
	}
	pr := &ProtectedResource{Resource: "https://cwac.example.org/mcp"}
	want := `Bearer realm="cwac-operator", resource_metadata="https://cwac.example.org/.well-known/oauth-protected-resource/mcp"`
	if got := pr.challenge(); got != want {
		t.Errorf("challenge: %q, want %q", got, want)
	}
}

func TestIssuerOf(t *testing.T) {
	jwt := func(payload string) string {
		return "e30." + base64.RawURLEncoding.EncodeToString([]byte(payload)) + ".sig"
	}
	for token, want := range map[string]string{
		jwt(`{"iss":"https://id.example.org","sub":"a"}`): "https://id.example.org",
		jwt(`{"sub":"a"}`): "",
		jwt(`not json`):    "",
		jwt(`{"iss":` + strings.Repeat(" ", 20<<10) + `1}`): "",
		"opaque-token": "",
		"a.b":          "",
		"a.!!!.c":      "",
	} {
		if got := issuerOf(token); got != want {
			t.Errorf("issuerOf(%.40q) = %q, want %q", token, got, want)
		}
	}
}
