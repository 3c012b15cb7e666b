package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFlagRefusals(t *testing.T) {
	dir := t.TempDir()
	s, p := filepath.Join(dir, "s"), filepath.Join(dir, "p")
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"no secret file":   {[]string{"--password-file", p, "--redirect-uri", "http://127.0.0.1:8090/cb"}, "--client-secret-file is required"},
		"no password file": {[]string{"--client-secret-file", s, "--redirect-uri", "http://127.0.0.1:8090/cb"}, "--password-file is required"},
		"no redirect":      {[]string{"--client-secret-file", s, "--password-file", p}, "--redirect-uri is required"},
		"bad port":         {[]string{"--port", "70000"}, "--port 70000"},
		"argument":         {[]string{"extra"}, "unexpected arguments"},
		"bad user": {[]string{"--client-secret-file", s, "--password-file", p, "--redirect-uri", "http://127.0.0.1:8090/cb",
			"--user", "dev"}, `user "dev"`},
	} {
		if err := run(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v (want %q)", name, err, tc.want)
		}
	}
}

func TestSecretFrom(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret")
	made, err := secretFrom(path, "--x")
	if err != nil || len(made) < 20 {
		t.Fatalf("made %q, %v", made, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the secret file: %v %v (want mode 0600)", fi.Mode(), err)
	}
	if again, _ := secretFrom(path, "--x"); again != made {
		t.Errorf("read back %q, made %q", again, made)
	}
	if err := os.WriteFile(path, []byte("  given-secret-value \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := secretFrom(path, "--x"); got != "given-secret-value" {
		t.Errorf("a given secret read as %q", got)
	}
	if _, err := secretFrom(filepath.Join(path, "under-a-file"), "--x"); err == nil || !strings.HasPrefix(err.Error(), "--x: ") {
		t.Errorf("an unusable path: %v", err)
	}
}
