package urlpolicy

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

// redirectChain redirects /0 to /1 and so on up to /n, which answers.
type redirectChain int

func (n redirectChain) Redirect(_ context.Context, raw string) (string, error) {
	u, _ := url.Parse(raw)
	var i int
	for _, c := range strings.TrimPrefix(u.Path, "/") {
		i = i*10 + int(c-'0')
	}
	if i >= int(n) {
		return "", nil
	}
	return "/" + itoa(i+1), nil
}

// MaxRedirects redirects are followed; one more is refused.
func TestMaxRedirectsBoundary(t *testing.T) {
	tests := []struct {
		max, redirects int
		refused        bool
	}{
		{max: 0, redirects: 5, refused: false}, // 0 means the default, 5
		{max: 0, redirects: 6, refused: true},
		{max: 2, redirects: 1, refused: false},
		{max: 2, redirects: 2, refused: false},
		{max: 2, redirects: 3, refused: true},
		{max: 1, redirects: 0, refused: false},
	}
	for _, tt := range tests {
		p := New(Config{Redirector: redirectChain(tt.redirects), MaxRedirects: tt.max})
		d := p.CheckURL(context.Background(), "https://example.org/0")
		if (d != nil) != tt.refused || (d != nil && d.Rule != RuleRedirect) {
			t.Errorf("max %d, %d redirects: %v, want refused %v", tt.max, tt.redirects, d, tt.refused)
		}
	}
}
