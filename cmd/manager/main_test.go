package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadDefaultConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := "\xef\xbb\xbf{\"audit_name\": \"x\", \"thread_count\": 8}\n"
	data, err := readDefaultConfig(write("good.json", good))
	if err != nil || string(data) != good {
		t.Errorf("a CWAC config with a byte-order mark: %q, %v (want it byte for byte)", data, err)
	}
	for _, tt := range []struct{ name, content, want string }{
		{"list.json", "[1]", "not a JSON object"},
		{"broken.json", `{"audit_name":`, "decoding CWAC config"},
		{"latin1.json", "{\"a\": \"\xe9\"}", "not UTF-8"},
		{"huge.json", `{"a": "` + strings.Repeat("x", maxDefaultConfigBytes) + `"}`, "more than"},
	} {
		if _, err := readDefaultConfig(write(tt.name, tt.content)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	if _, err := readDefaultConfig(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing file was accepted")
	}
}
