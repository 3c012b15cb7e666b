package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDigestFlags(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	user, pass, empty := write("user", "sender\n"), write("pass", "secret\n"), write("empty", " \n")
	ok := digestFlags{dashboardURL: "https://cwac.example/", host: "smtp.example", port: 587, security: "STARTTLS", from: "d@cwac.example",
		usernameFile: user, passwordFile: pass}
	for _, c := range []struct {
		name    string
		change  func(*digestFlags)
		wantErr string
	}{
		{"every setting", nil, ""},
		{"no dashboard address", func(f *digestFlags) { f.dashboardURL = "" }, "--digest-dashboard-url"},
		{"a dashboard address without a scheme", func(f *digestFlags) { f.dashboardURL = "cwac.example" }, "--digest-dashboard-url"},
		{"unencrypted", func(f *digestFlags) { f.security = "none" }, "security \"none\""},
		{"no sender", func(f *digestFlags) { f.from = "" }, "from"},
		{"an empty password file", func(f *digestFlags) { f.passwordFile = empty }, "--smtp-password-file is empty"},
		{"a user without a password", func(f *digestFlags) { f.passwordFile = "" }, "give both or neither"},
		{"a missing CA file", func(f *digestFlags) { f.caFile = filepath.Join(dir, "nope") }, "--smtp-ca-file"},
		{"a CA file without certificates", func(f *digestFlags) { f.caFile = user }, "no PEM certificate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := ok
			if c.change != nil {
				c.change(&f)
			}
			s, base, err := f.server()
			if c.wantErr == "" {
				if err != nil || s == nil || s.Username != "sender" || s.Password != "secret" || base != "https://cwac.example" {
					t.Fatalf("got %+v %q %v", s, base, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %v, want one saying %q", err, c.wantErr)
			}
		})
	}
	if s, _, err := (digestFlags{}).server(); s != nil || err != nil {
		t.Errorf("without --smtp-host: %+v %v, want no server and no error", s, err)
	}
}
