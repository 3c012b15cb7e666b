package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// indexVolume is a results volume and the scans whose results it holds:
// scans whose resultsPath names a CWAC directory (in their own directory,
// and elsewhere), a running scan whose resultsPath is its scan directory,
// a scan with no results, scans created in the same second, and results
// run by hand (at the root, in a namespace, and an older run of a listed
// scan, which belongs to it).
func indexVolume(t *testing.T) (*openTree, []cwacv1alpha1.CwacScan, time.Time) {
	t.Helper()
	dir := t.TempDir()
	mkdir := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p, "axe_core_audit.csv"), []byte("a,b\n1,2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC)
	scan := func(name string, created int, phase cwacv1alpha1.Phase) cwacv1alpha1.CwacScan {
		return cwacv1alpha1.CwacScan{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name + "-0000-uid"),
				CreationTimestamp: metav1.NewTime(base.Add(time.Duration(created) * time.Second))},
			Status: cwacv1alpha1.CwacScanStatus{Phase: phase},
		}
	}
	scans := make([]cwacv1alpha1.CwacScan, 0, 6)
	for i, name := range []string{"b-done", "a-done", "c-done"} {
		s := scan(name, 10*(i/2), cwacv1alpha1.PhaseComplete) // a-done and b-done in one second
		s.Status.ResultsPath = scanspec.ScanDir(&s) + fmt.Sprintf("/2026-11-21_23-00-0%d_%s", i, name)
		s.Status.Summary = &cwacv1alpha1.ScanSummary{Diff: &cwacv1alpha1.ScanDiff{New: int64(i), Fixed: 1}}
		mkdir(s.Status.ResultsPath)
		scans = append(scans, s)
	}
	older := scans[0].Status.ResultsPath[:len(scans[0].Status.ResultsPath)-len("2026-11-21_23-00-00_b-done")] + "2026-11-20_10-00-00_b-done"
	mkdir(older)
	elsewhere := scan("elsewhere", 5, cwacv1alpha1.PhaseComplete)
	elsewhere.Status.ResultsPath = "ns/by-hand-layout/2026-11-21_23-00-05_elsewhere"
	mkdir(elsewhere.Status.ResultsPath)
	running := scan("running", 30, cwacv1alpha1.PhaseRunning)
	running.Status.ResultsPath = scanspec.ScanDir(&running)
	mkdir(running.Status.ResultsPath + "/2026-11-21_23-00-30_running")
	noResults := scan("failed-early", 20, cwacv1alpha1.PhaseFailed)
	scans = append(scans, elsewhere, running, noResults)
	for _, p := range []string{"2026-11-21_23-00-10_at-root", "ns/2026-11-21_23-00-40_in-namespace", "other/x/2026-11-21_22-59-59_old"} {
		mkdir(p)
	}
	tree := volumeTree{path: dir}
	fsys, done, err := tree.open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(done)
	return &openTree{fsys: fsys, id: tree.id(), walks: tree.walks()}, scans, base.Add(time.Hour)
}

// TestListPageMatchesTheFullList: the page read from the index is the list
// made from every scan, for every limit: the same entries, in the same
// order, with the same total and note.
func TestListPageMatchesTheFullList(t *testing.T) {
	root, scans, now := indexVolume(t)
	index := newScanIndex()
	for i := range scans {
		s := scans[i]
		index.put(&s)
	}
	full := func(limit int) ListOutput {
		entries, claimed := scanEntries(root, scans)
		more, note := handRunEntries(root, scans, claimed, now)
		var notes []string
		if note != "" {
			notes = append(notes, note)
		}
		return newestFirst(append(entries, more...), limit, notes)
	}
	for limit := 1; limit <= 12; limit++ {
		want, got := full(limit), listPage(index, root, limit, nil, now)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("limit %d:\n got %+v\nwant %+v", limit, got, want)
		}
	}
	if got := listPage(index, root, 50, nil, now); got.Total != 9 {
		t.Errorf("total %d, want 6 scans and 3 directories run by hand", got.Total)
	}
}

// TestScanIndexFollowsTheInformer: adds, updates (a scan gets its results
// directory) and deletes, tombstones included, keep the order and the
// claims; the results directories run by hand are computed again when the
// scans change.
func TestScanIndexFollowsTheInformer(t *testing.T) {
	root, scans, now := indexVolume(t)
	index := newScanIndex()
	h := index.handler()
	for i := range scans {
		h.OnAdd(&scans[i], true)
	}
	names := func() []string {
		page, _ := index.newest(100)
		out := make([]string, 0, len(page))
		for _, s := range page {
			out = append(out, s.Name)
		}
		return out
	}
	want := []string{"running", "failed-early", "c-done", "elsewhere", "a-done", "b-done"}
	if got := names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	dirs, _ := index.unclaimed(root.fsys, root.id, now)
	if len(dirs) != 3 {
		t.Errorf("%d directories run by hand, want 3: %+v", len(dirs), dirs)
	}

	// A scan now claims the directory in its namespace: it is no longer run by hand.
	updated := scans[5].DeepCopy()
	updated.Status.ResultsPath = "ns/2026-11-21_23-00-40_in-namespace"
	h.OnUpdate(&scans[5], updated)
	if dirs, _ := index.unclaimed(root.fsys, root.id, now); len(dirs) != 2 {
		t.Errorf("%d directories run by hand after a scan claimed one, want 2", len(dirs))
	}
	if got := names(); !reflect.DeepEqual(got, want) {
		t.Errorf("order after an update %v, want %v", got, want)
	}

	h.OnDelete(&scans[0])
	h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "ns/elsewhere", Obj: &scans[3]})
	if got, want := names(), []string{"running", "failed-early", "c-done", "a-done"}; !reflect.DeepEqual(got, want) {
		t.Errorf("order after deletes %v, want %v", got, want)
	}
	// b-done's two directories and elsewhere's are nobody's now.
	if dirs, _ := index.unclaimed(root.fsys, root.id, now); len(dirs) != 5 {
		t.Errorf("%d directories run by hand after deletes, want 5: %+v", len(dirs), dirs)
	}
	if len(index.scanDirs) != 4 || len(index.resultDirs) != 4 {
		t.Errorf("claims left: %v and %v, want those of the 4 scans left", index.scanDirs, index.resultDirs)
	}
}
