package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseEntry(t *testing.T) {
	tests := []struct {
		line    string
		want    entry
		wantErr string
	}{
		{
			line: `internal/a/a.go:12:CONDITIONALS_BOUNDARY "if n <= max {" at n == max both branches return s`,
			want: entry{file: "internal/a/a.go", line: 12, mutator: "CONDITIONALS_BOUNDARY", snippet: "if n <= max {", reason: "at n == max both branches return s"},
		},
		{
			line: `internal/a/a.go:3:INVERT_NEGATIVES "x := \"a|b\" || y" quotes and bars in the snippet`,
			want: entry{file: "internal/a/a.go", line: 3, mutator: "INVERT_NEGATIVES", snippet: `x := "a|b" || y`, reason: "quotes and bars in the snippet"},
		},
		{line: `internal/a/a.go:12 "if" reason`, wantErr: "want file.go:LINE:MUTATOR"},
		{line: `internal/a/a.go:x:ARITHMETIC_BASE "a+b" reason`, wantErr: `line "x" is not a line number`},
		{line: `internal/a/a.go:0:ARITHMETIC_BASE "a+b" reason`, wantErr: `line "0" is not a line number`},
		{line: `internal/a/a.go:4:ARITHMETIC_BASE a+b reason`, wantErr: "no quoted snippet"},
		{line: `internal/a/a.go:4:ARITHMETIC_BASE "a+b"`, wantErr: "empty snippet or reason"},
		{line: `internal/a/a.go:4:ARITHMETIC_BASE " " reason`, wantErr: "empty snippet or reason"},
	}
	for _, tt := range tests {
		got, err := parseEntry(tt.line)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseEntry(%q) error = %v, want one containing %q", tt.line, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("parseEntry(%q) = %+v, %v; want %+v", tt.line, got, err, tt.want)
		}
	}
}

func TestEfficacy(t *testing.T) {
	tests := []struct {
		c          counts
		equivalent int
		want       float64
	}{
		{counts{killed: 9, lived: 1}, 0, 90},
		{counts{killed: 8, timedOut: 1, lived: 1}, 0, 90},
		{counts{killed: 9, lived: 1}, 1, 100},
		{counts{killed: 3, lived: 2, notCovered: 5, notViable: 4}, 0, 60},
		{counts{}, 0, 100},
		{counts{lived: 1}, 1, 100},
	}
	for _, tt := range tests {
		if got := tt.c.efficacy(tt.equivalent); got != tt.want {
			t.Errorf("%+v.efficacy(%d) = %v, want %v", tt.c, tt.equivalent, got, tt.want)
		}
	}
}

// A package with one source file, its gremlins report and coverage, and an
// equivalents list: run's table, findings and verdict.
func TestRun(t *testing.T) {
	src := t.TempDir()
	writeFile(t, src, "internal/p/p.go", strings.Join([]string{
		"package p",                  // 1
		"func f(n int) bool {",       // 2
		"	if n <= 3 { return true }", // 3
		"	if n <= 3 { return true }", // 4
		"	return n+1 > 9",            // 5
		"}",                          // 6
	}, "\n"))
	report := `{"files":[{"file_name":"p.go","mutations":[
		{"type":"CONDITIONALS_BOUNDARY","status":"LIVED","line":3,"column":7},
		{"type":"CONDITIONALS_BOUNDARY","status":"LIVED","line":4,"column":7},
		{"type":"ARITHMETIC_BASE","status":"KILLED","line":5,"column":10},
		{"type":"CONDITIONALS_BOUNDARY","status":"TIMED OUT","line":5,"column":12},
		{"type":"CONDITIONALS_NEGATION","status":"NOT COVERED","line":5,"column":12}]}]}`
	const p3, p4 = "internal/p/p.go:3:CONDITIONALS_BOUNDARY \"n <= 3\" r\n", "internal/p/p.go:4:CONDITIONALS_BOUNDARY \"n <= 3\" r\n"
	tests := []struct {
		name        string
		equivalents string
		reportOnly  string
		wantOK      bool
		want        []string
		notWant     []string
	}{
		{
			name:   "two survivors, nothing listed",
			wantOK: false,
			want: []string{"internal/p                100.0%       5      1     1     2     0      1    50.0%    50.0%     7s  FAIL: efficacy 50.0% < 90%",
				"survived  internal/p/p.go:3:7 CONDITIONALS_BOUNDARY  if n <= 3 { return true }",
				"survived  internal/p/p.go:4:7 CONDITIONALS_BOUNDARY"},
		},
		{
			name:        "both listed, one at a shifted line",
			equivalents: "internal/p/p.go:3:CONDITIONALS_BOUNDARY \"n <= 3\" r\ninternal/p/p.go:9:CONDITIONALS_BOUNDARY \"n <= 3\" r\n",
			wantOK:      true,
			want:        []string{"    2     2      1    50.0%   100.0%     7s  ok", "moved     internal/p/p.go:4:7 CONDITIONALS_BOUNDARY (listed at line 9; update"},
			notWant:     []string{"survived"},
		},
		{
			name:        "a listed mutant the tests kill is stale",
			equivalents: p3 + p4 + "internal/p/p.go:5:ARITHMETIC_BASE \"n+1\" r\n",
			wantOK:      false,
			want:        []string{"FAIL: 1 stale equivalent(s)", `stale     ` + "EQ:4" + ` internal/p/p.go:5:ARITHMETIC_BASE "n+1": the mutant at line 5 is now KILLED`},
		},
		{
			name:        "a listed mutant that is gone is stale",
			equivalents: p3 + p4 + "internal/p/p.go:7:CONDITIONALS_BOUNDARY \"n < 7\" r\n",
			wantOK:      false,
			want:        []string{`internal/p/p.go:7:CONDITIONALS_BOUNDARY "n < 7": no such mutant any more`},
		},
		{
			name:        "another package's entries are not this run's business",
			equivalents: p3 + p4 + "internal/q/q.go:1:ARITHMETIC_BASE \"a+b\" r\ninternal/p/sub/s.go:1:ARITHMETIC_BASE \"a+b\" r\n",
			wantOK:      true,
			notWant:     []string{"stale"},
		},
		{
			name:       "a package below target that is only reported passes",
			reportOnly: "internal/p",
			wantOK:     true,
			want:       []string{"reported, not enforced: efficacy 50.0% < 90%"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			results := t.TempDir()
			writeFile(t, results, "internal_p/pkg.txt", "internal/p\n")
			writeFile(t, results, "internal_p/gremlins.json", report)
			writeFile(t, results, "internal_p/coverage.txt", "ok  \tx/internal/p\t0.1s\tcoverage: 100.0% of statements\n")
			writeFile(t, results, "internal_p/seconds.txt", "7\n")
			fp := strings.Repeat("ab", 32)
			writeFile(t, results, "internal_p/fingerprint.txt", fp+"\n")
			verified := filepath.Join(t.TempDir(), "verified.txt")
			writeFile(t, filepath.Dir(verified), "verified.txt", "internal/other "+strings.Repeat("0", 64)+"\n")
			eq := filepath.Join(t.TempDir(), "EQ")
			writeFile(t, filepath.Dir(eq), "EQ", "# comment\n"+tt.equivalents)
			var out bytes.Buffer
			ok, err := run(&out, options{resultsDir: results, srcDir: src, equivalentsFile: eq,
				reportOnly: strings.Fields(tt.reportOnly), minEfficacy: 90, minCoverage: 90, verifiedFile: verified})
			if err != nil {
				t.Fatal(err)
			}
			text := strings.ReplaceAll(out.String(), eq, "EQ")
			if ok != tt.wantOK {
				t.Errorf("ok = %v, want %v\n%s", ok, tt.wantOK, text)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q:\n%s", w, text)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(text, w) {
					t.Errorf("output has %q:\n%s", w, text)
				}
			}
			// Only an enforced package that met every target is recorded;
			// the other lines stay.
			got, err := readVerified(verified)
			if err != nil {
				t.Fatal(err)
			}
			wantRecorded := tt.wantOK && tt.reportOnly == ""
			if recorded := got["internal/p"] == fp; recorded != wantRecorded {
				t.Errorf("internal/p recorded in verified.txt = %v, want %v (%v)", recorded, wantRecorded, got)
			}
			if got["internal/other"] != strings.Repeat("0", 64) {
				t.Errorf("verified.txt lost another package's line: %v", got)
			}
		})
	}
}

func TestRunFailsPackagesWithoutResults(t *testing.T) {
	results := t.TempDir()
	writeFile(t, results, "internal_p/pkg.txt", "internal/p\n")
	writeFile(t, results, "internal_p/coverage.txt", "FAIL\tx/internal/p [build failed]\n")
	eq := filepath.Join(t.TempDir(), "EQ")
	writeFile(t, filepath.Dir(eq), "EQ", "")
	var out bytes.Buffer
	ok, err := run(&out, options{resultsDir: results, srcDir: t.TempDir(), equivalentsFile: eq, minEfficacy: 90, minCoverage: 90})
	if err != nil || ok || !strings.Contains(out.String(), "FAIL: go test -cover printed no coverage") {
		t.Errorf("ok=%v err=%v, output:\n%s", ok, err, out.String())
	}
}

func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
