package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecordVerified(t *testing.T) {
	a, b, c := strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("c", 64)
	tests := []struct {
		name     string
		existing string // "" for no file
		passed   map[string]string
		want     string // the lines after the header
	}{
		{"a new file", "", map[string]string{"internal/b": b, "internal/a": a}, "internal/a " + a + "\ninternal/b " + b + "\n"},
		{"a new package among others, sorted", "internal/c " + c + "\ninternal/a " + a + "\n", map[string]string{"internal/b": b},
			"internal/a " + a + "\ninternal/b " + b + "\ninternal/c " + c + "\n"},
		{"a package's line replaced", verifiedHeader + "internal/a " + a + "\n", map[string]string{"internal/a": b}, "internal/a " + b + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := filepath.Join(t.TempDir(), "verified.txt")
			if tt.existing != "" {
				if err := os.WriteFile(name, []byte(tt.existing), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := recordVerified(name, tt.passed); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != verifiedHeader+tt.want {
				t.Errorf("verified.txt =\n%s\nwant the header and\n%s", got, tt.want)
			}
		})
	}
}

func TestReadVerifiedRefusesBadLines(t *testing.T) {
	a := strings.Repeat("a", 64)
	tests := []struct{ text, wantErr string }{
		{"internal/a\n", `verified.txt:1: want "<package> <64 hex digits>"`},
		{"internal/a abc\n", "verified.txt:1: want"},
		{"# c\ninternal/a " + strings.Repeat("A", 64) + "\n", "verified.txt:2: want"},
		{"internal/a " + a + " extra\n", "verified.txt:1: want"},
		{"internal/a " + a + "\ninternal/a " + a + "\n", "verified.txt:2: package internal/a listed twice"},
	}
	for _, tt := range tests {
		name := filepath.Join(t.TempDir(), "verified.txt")
		if err := os.WriteFile(name, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readVerified(name); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("readVerified(%q) error = %v, want one containing %q", tt.text, err, tt.wantErr)
		}
	}
}
