package dashboard

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// fixedOwners is an Owners with set answers.
type fixedOwners struct {
	of  map[string][]cwacv1alpha1.Owner
	err error
}

func (f fixedOwners) Of(context.Context, string) (map[string][]cwacv1alpha1.Owner, error) {
	return f.of, f.err
}

// TestOwnersShown: the organisation page names every owner of the
// organisation (an address as a mail link, a group by name, a page
// owner's prefix); the issue page those who answer for its page; a group
// name is text, never markup; without an Owners source neither page says
// anything of owners, and a source that fails is a 503, not a page
// without them.
func TestOwnersShown(t *testing.T) {
	h, st := newTestHandler(t, Options{Owners: fixedOwners{of: map[string][]cwacv1alpha1.Owner{orgAlpha: {
		{Email: "web@alpha.example"}, {Group: "alpha <web> team"}, {Email: "news@alpha.example", Pages: "https://alpha.example/news"},
	}}}})
	_, body := get(t, h, "reader", "/organisations/cwac/"+url.PathEscape(orgAlpha))
	for _, want := range []string{"<dt>Owners</dt>", `<a href="mailto:web@alpha.example">web@alpha.example</a>`, "group alpha &lt;web&gt; team",
		`<a href="mailto:news@alpha.example">news@alpha.example</a> (pages under https://alpha.example/news)`} {
		if !strings.Contains(body, want) {
			t.Errorf("the organisation page lacks %q", want)
		}
	}
	ch, err := st.OrganisationLatestChanges(context.Background(), testNS, orgAlpha, 25)
	if err != nil || len(ch.Fixed) == 0 {
		t.Fatalf("latest changes: %+v %v", ch, err)
	}
	is := ch.Fixed[0]
	_, body = get(t, h, "reader", "/issues/cwac/"+is.Fingerprint)
	underNews := strings.HasPrefix(is.Page, "https://alpha.example/news")
	if !strings.Contains(body, "mailto:web@alpha.example") || strings.Contains(body, "news@alpha.example") != underNews {
		t.Errorf("the issue page on %s names the wrong owners (the news owner only under /news)", is.Page)
	}

	none, _ := newTestHandler(t, Options{})
	if _, body := get(t, none, "reader", "/organisations/cwac/"+url.PathEscape(orgAlpha)); strings.Contains(body, "Owners") {
		t.Error("without an owners source the organisation page speaks of owners")
	}
	broken, _ := newTestHandler(t, Options{Owners: fixedOwners{err: errors.New("cache gone")}})
	if res, _ := get(t, broken, "reader", "/organisations/cwac/"+url.PathEscape(orgAlpha)); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a failing owners source: status %d, want 503", res.StatusCode)
	}
	// Another organisation's page: none declared.
	_, body = get(t, h, "reader", "/organisations/cwac/"+url.PathEscape(orgBeta))
	if !strings.Contains(body, "none declared with its sites") {
		t.Error("an organisation without owners does not say so")
	}
}
