package mcpserver

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/orgaccess"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// sectorServer is a server over a SQLite store holding two scans of the
// "Health" sector: A complete both times, B partial, then blocked.
func sectorServer(t *testing.T, maxResponse int) *Server {
	t.Helper()
	st := storetest.OpenSQLite(t)
	ctx := context.Background()
	for i, orgs := range [][]struct {
		name    string
		pages   int
		serious int64
		verdict string
	}{
		{{"A", 10, 20, "complete"}, {"B", 10, 0, "partial"}},
		{{"A", 10, 10, "complete"}, {"B", 1, 0, "blocked"}},
	} {
		w, err := st.BeginScan(ctx, store.Scan{UID: string(rune('a' + i)), Namespace: "ns", Name: []string{"w1", "w2"}[i],
			Schedule: "weekly", FinishedAt: time.Unix(int64(100*(i+1)), 0), Phase: "Complete"}, "test")
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range orgs {
			id, err := w.Organisation(ctx, o.name, "Health")
			if err != nil {
				t.Fatal(err)
			}
			if err := w.AddOrganisationFigures(ctx, store.OrganisationFigures{OrgID: id, Schedule: "weekly", BaseURLs: 1,
				Pages: o.pages, Issues: o.serious, Elements: o.serious, ByImpact: [5]int64{0, o.serious}, Completeness: o.verdict}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return &Server{cfg: Config{Namespace: "ns", History: store.NewHandle(st), MaxResponseBytes: maxResponse}}
}

func TestSectorTrendTool(t *testing.T) {
	s := sectorServer(t, 512<<10)
	call := &callInfo{reach: orgaccess.Whole()}
	out, err := s.sectorTrend(context.Background(), call, mcpapi.SectorTrendInput{Sector: "Health"})
	if err != nil {
		t.Fatal(err)
	}
	if call.Target != "history:ns" || out.Namespace != "ns" || out.Sector != "Health" || len(out.Points) != 2 || out.Truncated {
		t.Fatalf("answer %+v (target %q)", out, call.Target)
	}
	// First scan: 20 serious issues on 20 pages: 100 - 20×5/20 = 95.0.
	// Second: B blocked is left out: 10 serious on A's 10 pages: 95.0.
	p1, p2 := out.Points[0], out.Points[1]
	if p1.Scan != "ns/w1" || p1.Pages != 20 || p1.Organisations != 2 || p1.NotScored != 0 || p1.Score == nil || *p1.Score != 95 {
		t.Errorf("first point %+v (score %v)", p1, p1.Score)
	}
	if p2.Scan != "ns/w2" || p2.Pages != 10 || p2.Organisations != 2 || p2.NotScored != 1 || p2.Score == nil || *p2.Score != 95 ||
		p2.ByImpact["serious"] != 10 {
		t.Errorf("second point %+v (score %v)", p2, p2.Score)
	}
	for _, tc := range []struct {
		in   mcpapi.SectorTrendInput
		want string
	}{
		{mcpapi.SectorTrendInput{}, "sector is required"},
		{mcpapi.SectorTrendInput{Sector: "Defence"}, `No sector "Defence" in the issue history of namespace ns`},
	} {
		if _, err := s.sectorTrend(context.Background(), &callInfo{reach: orgaccess.Whole()}, tc.in); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %q", tc.in, err, tc.want)
		}
	}
	// By grant: a grant of the whole sector reads its sums; a grant of one
	// of its organisations does not, with the same words for a sector
	// that does not exist.
	bySector := &callInfo{reach: orgaccess.Granted([]cwacv1alpha1.CwacOrganisationGrant{{Spec: cwacv1alpha1.CwacOrganisationGrantSpec{
		Subjects: []cwacv1alpha1.GrantSubject{{Kind: cwacv1alpha1.GrantSubjectUser, Name: "u"}}, Sectors: []string{"Health"}}}}, "u", nil)}
	if out, err := s.sectorTrend(context.Background(), bySector, mcpapi.SectorTrendInput{Sector: "Health"}); err != nil || len(out.Points) != 2 {
		t.Errorf("by a grant of the sector: %+v, %v", out, err)
	}
	byOrg := &callInfo{reach: orgaccess.Granted([]cwacv1alpha1.CwacOrganisationGrant{{Spec: cwacv1alpha1.CwacOrganisationGrantSpec{
		Subjects: []cwacv1alpha1.GrantSubject{{Kind: cwacv1alpha1.GrantSubjectUser, Name: "u"}}, Organisations: []string{"A"}}}}, "u", nil)}
	_, refused := s.sectorTrend(context.Background(), byOrg, mcpapi.SectorTrendInput{Sector: "Health"})
	_, absent := s.sectorTrend(context.Background(), byOrg, mcpapi.SectorTrendInput{Sector: "Defence"})
	if !errors.Is(refused, orgaccess.ErrNotCovered) || absent == nil || refused.Error() != absent.Error() {
		t.Errorf("by a grant of one organisation: %v; a sector not there: %v (want the same refusal)", refused, absent)
	}
	if _, err := s.sectorTrend(context.Background(), &callInfo{}, mcpapi.SectorTrendInput{Sector: "Health"}); !errors.Is(err, orgaccess.ErrNotCovered) {
		t.Errorf("a call with no reach: %v", err)
	}
	none := &Server{cfg: Config{Namespace: "ns"}}
	whole := &callInfo{reach: orgaccess.Whole()}
	if _, err := none.sectorTrend(context.Background(), whole, mcpapi.SectorTrendInput{Sector: "Health"}); !errors.Is(err, errNoHistory) {
		t.Errorf("without a store: %v", err)
	}
}

// Under a small cap the newest points are kept and the answer says so.
func TestSectorTrendToolCap(t *testing.T) {
	s := sectorServer(t, historyAnswerReserve+500) // room for one point of about 320 bytes
	out, err := s.sectorTrend(context.Background(), &callInfo{reach: orgaccess.Whole()}, mcpapi.SectorTrendInput{Sector: "Health"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Points) != 1 || out.Points[0].Scan != "ns/w2" || !out.Truncated || !strings.Contains(out.Note, "oldest 1 of 2") {
		t.Errorf("capped answer: %d points, truncated %v, note %q", len(out.Points), out.Truncated, out.Note)
	}
}
