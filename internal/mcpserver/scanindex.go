package mcpserver

import (
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	toolscache "k8s.io/client-go/tools/cache"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// scanIndex keeps the scans of the server's namespace in cwac_list_scans'
// order, newest first, fed by the scan informer's events: a call reads the
// page it returns, and stats only that page's results directories. Listing
// every scan (a copy of each) and looking up each one's results directory
// made a call's cost grow with the number of scans; with 10,000 it was most
// of the cost. The scans are the informer's own objects, never modified.
type scanIndex struct {
	mu sync.RWMutex
	// scans are newest first: by creation second, then name (the order of
	// the timestamps cwac_list_scans shows, then of scan IDs).
	scans []*cwacv1alpha1.CwacScan
	// scanDirs counts the scans' directories on the results volume, and
	// resultDirs their status.resultsPath: the results directories they
	// claim, which are not listed as results run by hand.
	scanDirs, resultDirs map[string]int
	// version changes with every change of the scans.
	version uint64

	// handRun is the last answer of unclaimed, for the walk and version it
	// was computed from.
	handRun handRunAnswer
}

// handRunAnswer is the results directories of one walk of the volume that
// no scan claims, newest first.
type handRunAnswer struct {
	root      string
	walkedAt  time.Time
	version   uint64
	dirs      []handRunDir
	truncated bool
}

func newScanIndex() *scanIndex {
	return &scanIndex{scanDirs: map[string]int{}, resultDirs: map[string]int{}}
}

// handler feeds the index from the informer.
func (x *scanIndex) handler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) {
			if s, ok := o.(*cwacv1alpha1.CwacScan); ok {
				x.put(s)
			}
		},
		UpdateFunc: func(_, after any) {
			if s, ok := after.(*cwacv1alpha1.CwacScan); ok {
				x.put(s)
			}
		},
		DeleteFunc: func(o any) {
			if gone, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
				o = gone.Obj
			}
			if s, ok := o.(*cwacv1alpha1.CwacScan); ok {
				x.remove(s)
			}
		},
	}
}

// newerFirst orders scans as cwac_list_scans does: the later creation
// second first, then by name.
func newerFirst(a, b *cwacv1alpha1.CwacScan) int {
	if ta, tb := a.CreationTimestamp.Unix(), b.CreationTimestamp.Unix(); ta != tb {
		if ta > tb {
			return -1
		}
		return 1
	}
	return strings.Compare(a.Name, b.Name)
}

// put adds a scan, or replaces the version held (a scan's name and
// creation never change).
func (x *scanIndex) put(s *cwacv1alpha1.CwacScan) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.removeLocked(s)
	at, _ := slices.BinarySearchFunc(x.scans, s, newerFirst)
	x.scans = slices.Insert(x.scans, at, s)
	x.scanDirs[scanspec.ScanDir(s)]++
	if p := s.Status.ResultsPath; p != "" {
		x.resultDirs[p]++
	}
	x.version++
}

func (x *scanIndex) remove(s *cwacv1alpha1.CwacScan) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.removeLocked(s)
	x.version++
}

// removeLocked takes out the scan of s's name and creation, whatever its
// version; the caller holds x.mu.
func (x *scanIndex) removeLocked(s *cwacv1alpha1.CwacScan) {
	at, found := slices.BinarySearchFunc(x.scans, s, newerFirst)
	if !found {
		return
	}
	held := x.scans[at]
	x.scans = slices.Delete(x.scans, at, at+1)
	decrement(x.scanDirs, scanspec.ScanDir(held))
	if p := held.Status.ResultsPath; p != "" {
		decrement(x.resultDirs, p)
	}
}

func decrement(m map[string]int, key string) {
	if m[key] <= 1 {
		delete(m, key)
		return
	}
	m[key]--
}

// newest returns the first n scans, newest first, and how many there are.
func (x *scanIndex) newest(n int) ([]*cwacv1alpha1.CwacScan, int) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return slices.Clone(x.scans[:min(n, len(x.scans))]), len(x.scans)
}

// claims reports whether a results directory belongs to a scan: it is (or
// is right inside) a scan's status.resultsPath, or inside a scan's own
// directory. The caller holds x.mu.
func (x *scanIndex) claims(dir string) bool {
	if x.resultDirs[dir] > 0 || x.resultDirs[path.Dir(dir)] > 0 {
		return true
	}
	// <namespace>/<scan dir>/...: the scan directory is the first two parts.
	first, rest, ok := strings.Cut(dir, "/")
	if !ok {
		return false
	}
	second, _, ok := strings.Cut(rest, "/")
	return ok && x.scanDirs[first+"/"+second] > 0
}

// unclaimed is the results directories on the volume that no scan claims,
// newest first (their timestamps, then their paths): from the volume's
// cached walk, and computed again only when the walk or the scans change.
func (x *scanIndex) unclaimed(fsys fs.FS, treeID string, now time.Time) ([]handRunDir, bool) {
	walk := resultDirsCache.entry(fsys, treeID, now)
	x.mu.RLock()
	answer := x.handRun
	version := x.version
	if answer.root == treeID && answer.walkedAt.Equal(walk.at) && answer.version == version {
		x.mu.RUnlock()
		return answer.dirs, answer.truncated
	}
	dirs := make([]handRunDir, 0, len(walk.dirs))
	for _, d := range walk.dirs {
		if !x.claims(d.Path) {
			dirs = append(dirs, d)
		}
	}
	x.mu.RUnlock()
	slices.SortStableFunc(dirs, func(a, b handRunDir) int {
		if ta, tb := handRunTimestamp(a), handRunTimestamp(b); ta != tb {
			return strings.Compare(tb, ta)
		}
		return strings.Compare(a.Path, b.Path)
	})
	x.mu.Lock()
	x.handRun = handRunAnswer{root: treeID, walkedAt: walk.at, version: version, dirs: dirs, truncated: walk.truncated}
	x.mu.Unlock()
	return dirs, walk.truncated
}

// handRunTimestamp is the time a results directory's name gives, as
// cwac_list_scans shows it ("" when its name has none it can read).
func handRunTimestamp(d handRunDir) string {
	t, err := time.Parse("2006-01-02_15-04-05", d.Timestamp)
	if err != nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
