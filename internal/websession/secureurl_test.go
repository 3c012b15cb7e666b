package websession

import (
	"net/url"
	"testing"
)

func TestSecureURL(t *testing.T) {
	for raw, want := range map[string]bool{
		"https://id.example.org":            true,
		"https://id.example.org/realms/gov": true,
		"http://127.0.0.1:5556":             true,
		"http://localhost/cb":               true,
		"http://[::1]:8090/mcp":             true,
		"http://id.example.org":             false,
		"http://127.0.0.2":                  false,
		"https://user:pw@id.example.org":    false,
		"https://user@id.example.org":       false,
		"ftp://id.example.org":              false,
		"/relative":                         false,
		"https://":                          false,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		if got := SecureURL(u); got != want {
			t.Errorf("SecureURL(%q) = %v, want %v", raw, got, want)
		}
	}
}
