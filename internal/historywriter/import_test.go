package historywriter

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

func TestFindResultsDirs(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	for _, name := range []string{"2026-02-01_09-00-00_gov", "2026-01-01_09-00-00_gov", "2026-01-01_09-00-00_edu", "not-a-run"} {
		if err := os.MkdirAll(filepath.Join(runs, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	single := filepath.Join(dir, "2025-12-31_23-00-00_gov")
	if err := os.MkdirAll(single, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runs, "2020-01-01_00-00-00_file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	nz := time.FixedZone("NZDT", 13*3600)
	got, err := FindResultsDirs([]string{runs, single}, nz)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(got))
	for _, d := range got {
		names = append(names, d.Name)
		if !filepath.IsAbs(d.Path) || filepath.Base(d.Path) != d.Name {
			t.Errorf("%s: path %q", d.Name, d.Path)
		}
	}
	// Oldest first, then by name; a file with a run's name is no run.
	want := "2025-12-31_23-00-00_gov 2026-01-01_09-00-00_edu 2026-01-01_09-00-00_gov 2026-02-01_09-00-00_gov"
	if strings.Join(names, " ") != want {
		t.Errorf("found %v, want %s", names, want)
	}
	if !got[0].At.Equal(time.Date(2025, 12, 31, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("the first run's time %v: not read in the zone given", got[0].At)
	}

	for _, tt := range []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "missing"), "no such file"},
		{"a file", filepath.Join(runs, "2020-01-01_00-00-00_file"), "is not a directory"},
		{"no run inside", filepath.Join(runs, "not-a-run"), "is not a CWAC results directory"},
		{"an impossible time", filepath.Join(dir, "2026-13-01_00-00-00_gov"), "the time in its name"},
	} {
		_ = os.MkdirAll(filepath.Join(dir, "2026-13-01_00-00-00_gov"), 0o755)
		if _, err := FindResultsDirs([]string{tt.path}, time.UTC); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", tt.name, err, tt.want)
		}
	}
}

// TestImport imports copies of the real run as weekly runs, oldest first,
// twice (the second adds nothing), then an older run that arrives late.
func TestImport(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			ctx := context.Background()
			dir := t.TempDir()
			copyRun(t, dir, "2026-01-15_03-00-00_weekly")
			copyRun(t, dir, "2026-01-08_03-00-00_weekly")
			dirs, err := FindResultsDirs([]string{dir}, time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			opts := ImportOptions{Namespace: "a11y", Schedule: "weekly", Image: "cwac:1", Holder: "test"}
			var got []Imported
			failed, err := Import(ctx, st, dirs, opts, func(i Imported) { got = append(got, i) })
			if err != nil || failed != 0 || len(got) != 2 {
				t.Fatalf("import: %d failed, %v, %+v", failed, err, got)
			}
			if got[0].Dir.Name != "2026-01-08_03-00-00_weekly" || got[0].Result.New == 0 || got[1].Result.New != 0 || got[1].Result.StillOpen != got[0].Result.New {
				t.Errorf("the two weeks: %+v", got)
			}
			orgs, err := st.Organisations(ctx, []string{"a11y"})
			if err != nil || len(orgs) == 0 {
				t.Fatalf("organisations: %v %v", orgs, err)
			}
			trend, err := st.OrganisationTrend(ctx, []string{"a11y"}, orgs[0].Name, "weekly")
			if err != nil || len(trend) != 2 || trend[0].Scan != "a11y/2026-01-08_03-00-00_weekly" || trend[1].Engine.CWACImageDigest != "cwac:1" {
				t.Errorf("trend: %+v %v", trend, err)
			}

			// Again: every directory is already stored.
			got = nil
			if failed, err := Import(ctx, st, dirs, opts, func(i Imported) { got = append(got, i) }); err != nil || failed != 0 ||
				!got[0].Result.AlreadyStored || !got[1].Result.AlreadyStored {
				t.Errorf("a second import: %d failed, %v, %+v", failed, err, got)
			}

			// A run older than those stored is refused, and the ones after it still go in.
			copyRun(t, dir, "2026-01-01_03-00-00_weekly")
			copyRun(t, dir, "2026-01-22_03-00-00_weekly")
			if dirs, err = FindResultsDirs([]string{dir}, time.UTC); err != nil {
				t.Fatal(err)
			}
			got = nil
			failed, err = Import(ctx, st, dirs, opts, func(i Imported) { got = append(got, i) })
			if err != nil || failed != 1 || !errors.Is(got[0].Err, store.ErrOutOfOrder) || got[3].Err != nil || got[3].Result.AlreadyStored {
				t.Errorf("a late older run: %d failed, %v, %+v", failed, err, got)
			}

			if _, err := Import(ctx, st, dirs, ImportOptions{}, func(Imported) {}); err == nil {
				t.Error("an import without a namespace was accepted")
			}
		})
	}
}
