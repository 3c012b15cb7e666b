package historywriter

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/ingest"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// ResultsDir is one hand-run CWAC results directory to import.
type ResultsDir struct {
	// Path is the directory, absolute.
	Path string
	// Name is its base name, CWAC's <YYYY-MM-DD_HH-MM-SS>_<audit name>.
	Name string
	// At is the time in its name.
	At time.Time
}

// FindResultsDirs lists the CWAC results directories the paths name, each
// a results directory itself or a directory holding some (one level down),
// oldest first by the time in their names (then by name and path), which
// is the order the history must be written in. loc is the time zone of
// the names (CWAC writes its machine's local time, with no zone).
func FindResultsDirs(paths []string, loc *time.Location) ([]ResultsDir, error) {
	var out []ResultsDir
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		info, err := os.Stat(abs)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("%s is not a directory", p)
		}
		if d, ok, err := resultsDir(abs, loc); err != nil {
			return nil, err
		} else if ok {
			out = append(out, d)
			continue
		}
		entries, err := os.ReadDir(abs)
		if err != nil {
			return nil, err
		}
		found := 0
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			d, ok, err := resultsDir(filepath.Join(abs, e.Name()), loc)
			if err != nil {
				return nil, err
			}
			if ok {
				out, found = append(out, d), found+1
			}
		}
		if found == 0 {
			return nil, fmt.Errorf("%s is not a CWAC results directory (<YYYY-MM-DD_HH-MM-SS>_<audit name>) and holds none", p)
		}
	}
	slices.SortFunc(out, func(a, b ResultsDir) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Path, b.Path))
	})
	return out, nil
}

// resultsDir describes dir when its name is a CWAC results directory's.
func resultsDir(dir string, loc *time.Location) (ResultsDir, bool, error) {
	name := filepath.Base(dir)
	ts, _, ok := cwac.ParseResultsDirName(name)
	if !ok {
		return ResultsDir{}, false, nil
	}
	at, err := cwac.ResultsDirTime(ts, loc)
	if err != nil {
		return ResultsDir{}, false, fmt.Errorf("%s: the time in its name: %w", dir, err)
	}
	return ResultsDir{Path: dir, Name: name, At: at}, true, nil
}

// ImportOptions describe the scans an import records.
type ImportOptions struct {
	// Namespace is the namespace the scans are recorded in: whoever may get
	// CwacScans there reads them.
	Namespace string
	// Schedule groups the scans as a CwacScanSchedule's would be (for the
	// trend's schedule filter and retention by count); "" for none.
	Schedule string
	// Image is the CWAC image that produced the results, when known.
	Image string
	// Holder names the writer in the store's lock row.
	Holder string
}

// Imported is what became of one directory.
type Imported struct {
	Dir    ResultsDir
	Result ingest.Result
	Err    error
}

// ImportUID is the store's identity of an imported directory: its
// namespace and CWAC's name for it, so that importing the same run again,
// from any copy, adds nothing.
func ImportUID(namespace, name string) string { return "import:" + namespace + "/" + name }

// Import records the directories, in the order given (FindResultsDirs':
// oldest first), each in one transaction, and reports each one. A
// directory that fails (unreadable, out of order) does not stop the
// others; Import returns how many failed.
func Import(ctx context.Context, st *store.Store, dirs []ResultsDir, opts ImportOptions, report func(Imported)) (int, error) {
	if opts.Namespace == "" {
		return 0, errors.New("history: an import needs the namespace to record the scans in")
	}
	failed := 0
	for _, d := range dirs {
		if err := ctx.Err(); err != nil {
			return failed, err
		}
		res, err := importDir(ctx, st, d, opts)
		if err != nil {
			failed++
		}
		report(Imported{Dir: d, Result: res, Err: err})
	}
	return failed, nil
}

func importDir(ctx context.Context, st *store.Store, d ResultsDir, opts ImportOptions) (ingest.Result, error) {
	// The directory is read through a root: a link inside it cannot lead
	// the reader out of it.
	root, err := os.OpenRoot(d.Path)
	if err != nil {
		return ingest.Result{}, err
	}
	defer func() { _ = root.Close() }() // read only
	scan := store.Scan{
		UID: ImportUID(opts.Namespace, d.Name), Namespace: opts.Namespace, Name: d.Name, Schedule: opts.Schedule,
		FinishedAt: d.At, Phase: "Imported", ResultsPath: d.Path, Engine: store.EngineVersions{CWACImageDigest: opts.Image},
	}
	return ingest.Ingest(ctx, st, root.FS(), scan, ingest.Options{Holder: opts.Holder})
}
