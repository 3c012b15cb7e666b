package dashboard

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Input quoted back in an error is cut to its limit with the marker
// included (textcap's contract), between characters.
func TestQuotedInputIsCutWithinItsLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check func(string) error
		input string
		limit int
	}{
		{"query parameter", func(s string) error { return checkQuery(map[string][]string{s: {"1"}}) }, strings.Repeat("k", 100), 64},
		{"Kubernetes name", func(s string) error { return checkName(fieldNamespace, s) }, strings.Repeat("N", 300), 64},
		{"organisation of two-byte characters", checkOrganisation, strings.Repeat("é", 600), 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.check(tc.input)
			if err == nil {
				t.Fatalf("%q accepted", tc.input)
			}
			want := textcap.Head(tc.input, tc.limit)
			if len(want) > tc.limit || !strings.HasSuffix(want, textcap.Ellipsis) || !utf8.ValidString(want) {
				t.Fatalf("textcap.Head gave %q", want)
			}
			if !strings.Contains(err.Error(), `"`+want+`"`) {
				t.Errorf("error %q does not quote %q (%d bytes)", err, want, len(want))
			}
		})
	}
}
