package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	// Fields 3.. of a real line, with the times at 14-17 set apart.
	tail := " S 812 812 812 0 -1 4194560 1186 0 0 0 %s 0 0 20 0 1 0 12345 220000000 5000 18446744073709551615"
	for _, tc := range []struct {
		name, line string
		want       procStat
		err        string
	}{
		{name: "plain", line: "4242 (postgres)" + strings.Replace(tail, "%s", "170 30 900 100", 1),
			want: procStat{ppid: 812, self: 200, children: 1000}},
		{name: "a command name with spaces and parentheses", line: "4242 (postgres: a (b) c)" + strings.Replace(tail, "%s", "1 2 3 4", 1),
			want: procStat{ppid: 812, self: 3, children: 7}},
		{name: "no command name", line: "4242 postgres S 812", err: "no command name"},
		{name: "cut short", line: "4242 (postgres) S 812 812", err: "3 fields after the command name, want at least 15"},
		{name: "not a number", line: "4242 (postgres)" + strings.Replace(tail, "%s", "x 30 900 100", 1), err: "field 14"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseProcStat(tc.line)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// TestOwnProcessStat reads this test's own line: its parent is the one
// that started it, and a process that has run has spent some time.
func TestOwnProcessStat(t *testing.T) {
	// Five clock ticks of CPU: a busy wait, where a sleep would spend none.
	spins := 0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		spins++
	}
	if spins == 0 {
		t.Fatal("the busy wait never ran")
	}
	st, err := readProcStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if st.ppid != os.Getppid() {
		t.Errorf("ppid %d, want %d", st.ppid, os.Getppid())
	}
	if st.self <= 0 {
		t.Errorf("CPU ticks %d, want some", st.self)
	}
}
