package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// resultsRoot gives confined access to the results volume: every path is
// relative, checked segment by segment, and opened through an os.Root, so
// neither "..", absolute paths nor symlinks can leave the root.
type resultsRoot struct {
	path string
}

var segmentRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,255}$`)

// maxRelPathLen bounds relative paths taken from status or arguments.
const maxRelPathLen = 1024

// validRelPath accepts only clean relative paths made of safe segments.
func validRelPath(p string) error {
	if p == "" {
		return errors.New("empty path")
	}
	if len(p) > maxRelPathLen {
		return fmt.Errorf("path longer than %d characters", maxRelPathLen)
	}
	if strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return fmt.Errorf("path %q is not relative to the results root", p)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." || !segmentRE.MatchString(seg) {
			return fmt.Errorf("path %q has an unsafe segment %q", p, seg)
		}
	}
	return nil
}

// errNoRoot means the results volume is not mounted or not readable.
var errNoRoot = errors.New("results root is not available")

// open opens the root; the caller closes it. The root is opened per call so a
// volume mounted after start-up is found.
func (r resultsRoot) open() (*os.Root, error) {
	root, err := os.OpenRoot(r.path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoRoot, err)
	}
	return root, nil
}

// sub returns the directory rel under the root as a callFS: confined to
// it, regular files only, readable while ctx lives.
func (r resultsRoot) sub(ctx context.Context, rel string) (fs.FS, func(), error) {
	if err := validRelPath(rel); err != nil {
		return nil, nil, err
	}
	root, err := r.open()
	if err != nil {
		return nil, nil, err
	}
	subRoot, err := root.OpenRoot(rel)
	closeReadOnly(root)
	if err != nil {
		return nil, nil, err
	}
	return callFS{ctx: ctx, root: subRoot}, func() { closeReadOnly(subRoot) }, nil
}

// closeReadOnly closes a root, file or stream this server only read from:
// nothing written can be lost, and what was read has already been checked,
// so a Close error has nothing left to report.
func closeReadOnly(c io.Closer) {
	_ = c.Close()
}

// resolveResultsDir finds CWAC's results directory for a scan: resultsPath
// itself when it names one, else the newest CWAC directory for auditName
// directly inside it.
func (r resultsRoot) resolveResultsDir(resultsPath, auditName string) (string, error) {
	if err := validRelPath(resultsPath); err != nil {
		return "", err
	}
	root, err := r.open()
	if err != nil {
		return "", err
	}
	defer closeReadOnly(root)
	if _, _, ok := cwac.ParseResultsDirName(path.Base(resultsPath)); ok {
		if info, err := root.Stat(resultsPath); err == nil && info.IsDir() {
			return resultsPath, nil
		}
		return "", fmt.Errorf("results directory %s is missing from the results volume", resultsPath)
	}
	entries, err := fs.ReadDir(root.FS(), resultsPath)
	if err != nil {
		return "", fmt.Errorf("no results directory yet under %s", resultsPath)
	}
	var names []string
	for _, e := range entries {
		if _, name, ok := cwac.ParseResultsDirName(e.Name()); ok && e.IsDir() && (auditName == "" || name == auditName) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("no results directory yet under %s", resultsPath)
	}
	sort.Strings(names)
	return resultsPath + "/" + names[len(names)-1], nil
}

// dirStats counts the files and bytes under a directory (bounded depth) and
// lists the audit types (CSV stems) directly in it.
type dirStats struct {
	FileCount  int
	SizeBytes  int64
	AuditTypes []string
}

func statDir(fsys fs.FS) dirStats {
	var st dirStats
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if strings.Count(p, "/") >= 2 {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		st.FileCount++
		if info, err := d.Info(); err == nil {
			st.SizeBytes += info.Size()
		}
		if audit, ok := results.AuditName(p); ok && !strings.Contains(p, "/") {
			st.AuditTypes = append(st.AuditTypes, audit)
		}
		return nil
	})
	sort.Strings(st.AuditTypes)
	return st
}

// handRunDir is a CWAC results directory found on the volume.
type handRunDir struct {
	Path      string
	Timestamp string
	AuditName string
}

// findResultDirs walks the root (to depth 3: <namespace>/<scan dir>/<CWAC
// dir>, or CWAC dirs placed higher by hand) for CWAC results directories.
func findResultDirs(fsys fs.FS, limit int) ([]handRunDir, bool) {
	var out []handRunDir
	truncated := false
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == "." {
			return nil
		}
		if ts, name, ok := cwac.ParseResultsDirName(d.Name()); ok {
			if len(out) >= limit {
				truncated = true
				return fs.SkipAll
			}
			out = append(out, handRunDir{Path: p, Timestamp: ts, AuditName: name})
			return fs.SkipDir
		}
		if strings.Count(p, "/") >= 2 {
			return fs.SkipDir
		}
		return nil
	})
	return out, truncated
}
