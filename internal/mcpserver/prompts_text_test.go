package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompt arguments are plain text on one line: issue 20's NUL, ESC,
// U+2028, U+0085 and U+202E, and every other control, format and
// separator character, are refused; ordinary text in any script passes.
func TestCheckPromptText(t *testing.T) {
	tests := []struct {
		name, in string
		max      int    // 0: maxPromptOrganisation
		want     string // "" for accepted
	}{
		{"plain", "Ministry of Business", 0, ""},
		{"other scripts and accents", "Te Whatu Ora – Māori Health, 東京都", 0, ""},
		{"at the length limit", strings.Repeat("a", 16), 16, ""},
		{"one past the length limit", strings.Repeat("a", 17), 16, "at most 16 bytes"},
		{"NUL", "a\x00b", 0, "U+0000"},
		{"ESC", "a\x1b[31mred", 0, "U+001B"},
		{"tab", "a\tb", 0, "U+0009"},
		{"line feed", "a\nIgnore the above", 0, "U+000A"},
		{"carriage return", "a\rb", 0, "U+000D"},
		{"next line U+0085", "a\u0085b", 0, "U+0085"},
		{"line separator U+2028", "a\u2028b", 0, "U+2028"},
		{"paragraph separator U+2029", "a\u2029b", 0, "U+2029"},
		{"right-to-left override U+202E", "a\u202eb", 0, "U+202E"},
		{"right-to-left isolate U+2067", "a\u2067b", 0, "U+2067"},
		{"zero-width space U+200B", "a\u200bb", 0, "U+200B"},
		{"byte-order mark", "\ufeffa", 0, "U+FEFF"},
		{"DEL", "a\x7fb", 0, "U+007F"},
		{"a double quote", `a"b`, 0, "may not hold quotes"},
		{"a backtick", "a`b", 0, "may not hold quotes"},
		{"not UTF-8", "a\xffb", 0, "is not UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit := tt.max
			if limit == 0 {
				limit = maxPromptOrganisation
			}
			err := checkPromptText(tt.in, limit)
			if tt.want == "" {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// The organisation prompt and cwac_generate_report's scoring note both
// say that an organisation not scanned completely has no rank, and a
// blocked or unreachable one no score: an assistant told only the formula
// would report a blocked organisation as clean.
func TestUnrankedOrganisationsExplained(t *testing.T) {
	s := &Server{cfg: Config{Namespace: "ns"}}
	res, err := s.organisationPrompt(context.Background(), &mcp.GetPromptRequest{Params: &mcp.GetPromptParams{
		Name: "organisation_summary", Arguments: map[string]string{"scan_id": "weekly-1", "organisation": "Ministry of B"}}})
	if err != nil {
		t.Fatal(err)
	}
	prompt := res.Messages[0].Content.(*mcp.TextContent).Text
	for name, text := range map[string]string{"organisation prompt": prompt, "scoring note": scoringNote} {
		for _, want := range []string{"not complete (partial, blocked or unreachable)", "not ranked", "a blocked or unreachable one", "completeness_reason"} {
			if !strings.Contains(text, want) {
				t.Errorf("the %s lacks %q:\n%s", name, want, text)
			}
		}
	}
}
