package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

func TestTrendResourceURI(t *testing.T) {
	for _, org := range []string{"CWAC Test Org", "Ministry of A/B", "Te Tāhuhu o te Mātauranga", "100% & more?#"} {
		uri := trendResourceURI("a11y", org)
		ns, got, err := parseTrendResourceURI(uri)
		if err != nil || ns != "a11y" || got != org {
			t.Errorf("%q: %s parses to %q, %q, %v", org, uri, ns, got, err)
		}
	}
	for _, tt := range []struct{ uri, want string }{
		{"cwac://history/a11y/Org/trend.json", "not an organisation's trend"},
		{"cwac://history/a11y/Org", "not an organisation's trend"},
		{"cwac://history/a11y//trend", "not an organisation's trend"},
		{"cwac://history/a11y/A/B/trend", "not an organisation's trend"},
		{"cwac://history/A11Y/Org/trend", "must be a Kubernetes name"},
		{"cwac://history/../Org/trend", "must be a Kubernetes name"},
		{"cwac://scans/a11y/Org/trend", "not an organisation's trend"},
		{"cwac://history/a11y/Org/trend?x=1", "not an organisation's trend"},
		{"cwac://u@history/a11y/Org/trend", "not an organisation's trend"},
		{"cwac://history/a11y/%zz/trend", "not an organisation's trend"},
		{"http://history/a11y/Org/trend", "not an organisation's trend"},
	} {
		if _, _, err := parseTrendResourceURI(tt.uri); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", tt.uri, err, tt.want)
		}
	}
}

// TestFitTrend: the newest points that fit under the cap are kept, in
// order, and the answer says how many of the oldest were left out.
func TestFitTrend(t *testing.T) {
	points := make([]store.TrendPoint, 40)
	for i := range points {
		points[i] = store.TrendPoint{Scan: fmt.Sprintf("ns/week-%02d", i), FinishedAt: time.Unix(int64(i), 0).UTC(),
			ByImpact: map[string]int64{"critical": int64(i)}, ByAudit: map[string]int64{"axe_core_audit": 1}}
	}
	one := jsonLen(mcpapi.TrendPointOf(points[0])) + 1
	for _, tt := range []struct {
		name string
		cap  int
		want int
	}{
		{"all fit", historyAnswerReserve + 40*one + 100, 40},
		{"ten fit", historyAnswerReserve + 10*one + one/2, 10},
		{"none fits", historyAnswerReserve, 0},
	} {
		s := &Server{cfg: Config{MaxResponseBytes: tt.cap}}
		out := s.fitTrend(mcpapi.OrganisationTrendOutput{Organisation: "O"}, points)
		if len(out.Points) != tt.want || out.Truncated != (tt.want < 40) {
			t.Errorf("%s: %d points, truncated %v; want %d", tt.name, len(out.Points), out.Truncated, tt.want)
			continue
		}
		if tt.want > 0 && (out.Points[0].Scan != points[40-tt.want].Scan || out.Points[tt.want-1].Scan != "ns/week-39") {
			t.Errorf("%s: kept %s..%s, want the newest", tt.name, out.Points[0].Scan, out.Points[tt.want-1].Scan)
		}
		if tt.want < 40 && !strings.Contains(out.Note, fmt.Sprintf("The oldest %d of 40 points", 40-tt.want)) {
			t.Errorf("%s: note %q", tt.name, out.Note)
		}
		if data, _ := json.Marshal(out); len(data) > tt.cap {
			t.Errorf("%s: %d bytes, over the cap of %d", tt.name, len(data), tt.cap)
		}
	}
}

// TestAPIIssueCarriesEveryField: the tool's issue is the store's, field
// for field: every field of the store's row is in the answer, by the same
// name, with the same value (the store's rows have no wire shape of their
// own; mcpapi's is the one).
func TestAPIIssueCarriesEveryField(t *testing.T) {
	fixed := time.Unix(300, 0).UTC()
	is := store.Issue{Fingerprint: "fp", State: "fixed", Organisation: "O", Page: "https://o/", ViewportWidth: 320, Audit: "axe_core_audit",
		Rule: "image-alt", Impact: "critical", ElementHTML: "<img>", ElementHash: 0xfedcba9876543210, Target: "/html", HelpURL: "https://h", WCAG: []string{"1.1.1"},
		FirstSeenScan: "ns/a", FirstSeenAt: time.Unix(100, 0).UTC(), LastSeenScan: "ns/b", LastSeenAt: time.Unix(200, 0).UTC(),
		FixedInScan: "ns/c", FixedAt: &fixed, FixedReason: "fixed", Reopened: 2, ScansPresent: 3}
	got := reflect.ValueOf(mcpapi.IssueOf(is))
	want := reflect.ValueOf(is)
	for i := range want.NumField() {
		name := want.Type().Field(i).Name
		f := got.FieldByName(name)
		wantValue := want.Field(i).Interface()
		if name == "ElementHash" {
			wantValue = "fedcba9876543210" // as decisions name it
		}
		if !f.IsValid() || !reflect.DeepEqual(f.Interface(), wantValue) {
			t.Errorf("apiIssue: %s = %v, want %v", name, f, want.Field(i))
		}
	}
	p := store.TrendPoint{Scan: "ns/a", Schedule: "weekly", FinishedAt: fixed, BaseURLs: 1, Pages: 2, Issues: 3, Elements: 4,
		ByImpact: map[string]int64{"minor": 1}, ByAudit: map[string]int64{"x": 1}, WeightedPerPage: 0.5, New: 5, Fixed: 6,
		FixedPageNotScanned: 7, Reopened: 8, Unstable: 9, Open: 10, EngineChanged: true,
		Engine: store.EngineVersions{CWACImageDigest: "img", AxeCore: "4.13", Chrome: "156"}}
	tp := mcpapi.TrendPointOf(p)
	if tp.Scan != p.Scan || tp.Schedule != p.Schedule || !tp.FinishedAt.Equal(p.FinishedAt) || tp.BaseURLs != 1 || tp.Pages != 2 || tp.Issues != 3 ||
		tp.Elements != 4 || tp.ByImpact["minor"] != 1 || tp.ByAudit["x"] != 1 || tp.New != 5 || tp.Fixed != 6 || tp.FixedPageNotScanned != 7 ||
		tp.Reopened != 8 || tp.Unstable != 9 || tp.Open != 10 || !tp.EngineChanged ||
		tp.Engine != (mcpapi.EngineVersions{CWACImage: "img", AxeCore: "4.13", Chrome: "156"}) {
		t.Errorf("apiTrendPoint = %+v", tp)
	}
}

func TestHistoryWithoutStore(t *testing.T) {
	s := &Server{cfg: Config{Namespace: "ns"}}
	if _, _, err := s.history(); !errors.Is(err, errNoHistory) {
		t.Errorf("history without a store: %v", err)
	}
	// Configured, but its database has not answered yet: said apart.
	notOpen, err := store.OpenInBackground(t.Context(), "sqlite://"+t.TempDir()+"/missing/h.db",
		store.Backoff{First: time.Hour, Max: time.Hour}, func(error, time.Duration) {}, func(*store.Store) {})
	if err != nil {
		t.Fatal(err)
	}
	s.cfg.History = notOpen
	if _, _, err := s.history(); !errors.Is(err, errHistoryNotOpen) {
		t.Errorf("history with its database down: %v", err)
	}
	s.cfg.History = nil
	notFound := s.historyError("O", fmt.Errorf("x: %w", store.ErrNotFound))
	if err := notFound; err == nil || err.Error() != `No organisation "O" in the issue history of namespace ns` {
		t.Errorf("not found: %v", err)
	}
	if err := s.historyError("O", errors.New("disk full")); err == nil || err.Error() != "reading the issue history: disk full" {
		t.Errorf("a store error: %v", err)
	}
}

// TestTrendPointCompleteness: a point says how completely its organisation
// was scanned, and a blocked or unreachable one has no score (it would be
// a challenge or error page's).
func TestTrendPointCompleteness(t *testing.T) {
	score := 97.5
	for _, tt := range []struct {
		verdict   string
		wantScore bool
	}{
		{"complete", true},
		{"partial", true},
		{"", true}, // recorded before completeness was
		{"blocked", false},
		{"unreachable", false},
	} {
		p := mcpapi.TrendPointOf(store.TrendPoint{Scan: "ns/s", Score: &score, Completeness: tt.verdict, CompletenessReason: "why " + tt.verdict})
		if (p.Score != nil) != tt.wantScore || p.Completeness != tt.verdict || p.CompletenessReason != "why "+tt.verdict {
			t.Errorf("%q: score %v, completeness %q (%q); want a score %v", tt.verdict, p.Score, p.Completeness, p.CompletenessReason, tt.wantScore)
		}
	}
}
