package scanpod

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

func bigSummary(n int) *results.Summary {
	s := &results.Summary{
		TotalIssues: 99, IssuesByImpact: map[string]int64{"critical": 9}, IssuesByAuditType: map[string]int64{"axe_core_audit": 99}, PagesScanned: 3,
	}
	for i := 0; i < n; i++ {
		s.TopViolations = append(s.TopViolations, results.Violation{ID: strings.Repeat("r", 40), Description: strings.Repeat("d", 200), Count: 1})
		s.UnscannedBaseURLs = append(s.UnscannedBaseURLs, "https://"+strings.Repeat("h", 200)+".example/")
		s.BaseURLs = append(s.BaseURLs, results.BaseURLPages{BaseURL: "https://x/"})
	}
	return s
}

func TestEncodeSmallIsUntouched(t *testing.T) {
	m := Report{Outcome: OutcomeComplete, ExitCode: 0, ResultsDir: "2026-11-21_23-18-23_x", Summary: bigSummary(2)}
	got, ok := Decode(string(Encode(m, MaxBytes)))
	if !ok {
		t.Fatal("not decodable")
	}
	want := m
	s := *m.Summary
	s.BaseURLs = nil
	want.Summary = &s
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestEncodeAlwaysFitsAndIsJSON(t *testing.T) {
	tests := []struct {
		name string
		msg  Report
		keep func(Report) bool
	}{
		{"huge stderr", Report{Outcome: OutcomeCWACFailed, ExitCode: 1, StderrTail: strings.Repeat("Traceback ✗\n", 2000) + "ValueError: the end"},
			func(m Report) bool { return strings.HasSuffix(m.StderrTail, "ValueError: the end") }},
		{"huge summary", Report{Outcome: OutcomePartial, Summary: bigSummary(100)},
			func(m Report) bool {
				return m.Summary != nil && m.Summary.TotalIssues == 99 && m.Summary.PagesScanned == 3
			}},
		{"everything huge", Report{Outcome: OutcomeNoPages, Message: strings.Repeat("ā", 5000), StderrTail: strings.Repeat("x", 9000), Summary: bigSummary(500)},
			func(m Report) bool { return m.Outcome == OutcomeNoPages }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := Encode(tt.msg, MaxBytes)
			if len(b) > MaxBytes {
				t.Fatalf("encoded %d bytes, limit %d", len(b), MaxBytes)
			}
			if !json.Valid(b) {
				t.Fatalf("not valid JSON: %s", b)
			}
			m, ok := Decode(string(b))
			if !ok || !m.Truncated {
				t.Fatalf("decoded ok=%v truncated=%v", ok, m.Truncated)
			}
			if !tt.keep(m) {
				t.Errorf("lost what matters most: %s", b)
			}
		})
	}
}

func TestDecodeRejectsLogTails(t *testing.T) {
	for _, text := range []string{"", "Traceback (most recent call last):\n  File ...", "{}", "{not json"} {
		if _, ok := Decode(text); ok {
			t.Errorf("Decode(%q) accepted", text)
		}
	}
}

func FuzzEncode(f *testing.F) {
	f.Add("boom", "stderr", 3, 100)
	f.Fuzz(func(t *testing.T, msg, stderr string, violations, limit int) {
		if violations < 0 || violations > 2000 {
			return
		}
		if limit < 200 {
			limit = 200
		}
		b := Encode(Report{Outcome: OutcomeCWACFailed, Message: msg, StderrTail: stderr, Summary: bigSummary(violations)}, limit)
		if len(b) > limit || !json.Valid(b) {
			t.Fatalf("len %d > %d or invalid JSON: %s", len(b), limit, b)
		}
	})
}
