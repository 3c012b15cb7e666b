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
	"sync"
	"time"

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
	dir, _, err := resolveResultsDirIn(root, resultsPath, auditName)
	return dir, err
}

// resolveResultsDirIn is resolveResultsDir in a root already open, with
// resultsPath already checked by validRelPath. It also returns the
// directory's FileInfo when it had to look it up anyway (nil otherwise).
func resolveResultsDirIn(root *os.Root, resultsPath, auditName string) (string, fs.FileInfo, error) {
	if _, _, ok := cwac.ParseResultsDirName(path.Base(resultsPath)); ok {
		if info, err := root.Stat(resultsPath); err == nil && info.IsDir() {
			return resultsPath, info, nil
		}
		return "", nil, fmt.Errorf("results directory %s is missing from the results volume", resultsPath)
	}
	entries, err := fs.ReadDir(root.FS(), resultsPath)
	if err != nil {
		return "", nil, fmt.Errorf("no results directory yet under %s", resultsPath)
	}
	var names []string
	for _, e := range entries {
		if _, name, ok := cwac.ParseResultsDirName(e.Name()); ok && e.IsDir() && (auditName == "" || name == auditName) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return "", nil, fmt.Errorf("no results directory yet under %s", resultsPath)
	}
	sort.Strings(names)
	return resultsPath + "/" + names[len(names)-1], nil, nil
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

// Caches that keep cwac_list_scans from walking the whole results volume on
// every call: with a thousand scans that was some 16,000 system calls.
const (
	// maxStatCacheEntries bounds the stats remembered (about 200 bytes each).
	maxStatCacheEntries = 2 * maxDirsScanned
	// walkCacheTTL is how long the list of results directories on the
	// volume is reused: a directory CWAC wrote by hand is listed at most
	// this late.
	walkCacheTTL = 10 * time.Second
	// settledAfter is how long a results directory with no CwacScan must
	// have been left unchanged before its stats are remembered: a CWAC run
	// by hand may still be writing it.
	settledAfter = time.Minute
)

// statCache remembers the stats of results directories that no longer
// change (their scan finished), keyed by path and checked against the
// directory's modification time, so a directory that is rewritten or
// replaced is counted again.
type statCache struct {
	mu      sync.Mutex
	entries map[string]statEntry
}

type statEntry struct {
	modTime time.Time
	stats   dirStats
}

var dirStatsCache = &statCache{entries: map[string]statEntry{}}

func (c *statCache) get(key string, modTime time.Time) (dirStats, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !e.modTime.Equal(modTime) {
		return dirStats{}, false
	}
	return e.stats, true
}

func (c *statCache) put(key string, modTime time.Time, st dirStats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxStatCacheEntries {
		clear(c.entries) // rare: simpler than tracking use, and refilled in one call
	}
	c.entries[key] = statEntry{modTime: modTime, stats: st}
}

// walkCache remembers findResultDirs' answer per results root for walkCacheTTL.
type walkCache struct {
	mu      sync.Mutex
	entries map[string]walkEntry
}

type walkEntry struct {
	at        time.Time
	dirs      []handRunDir
	truncated bool
}

var resultDirsCache = &walkCache{entries: map[string]walkEntry{}}

// find returns the results directories under root, walking it at most
// once per walkCacheTTL. The answer is shared: callers must not modify it.
func (c *walkCache) find(root *os.Root, now time.Time) ([]handRunDir, bool) {
	e := c.entry(root, now)
	return e.dirs, e.truncated
}

// entry is find's answer with the time of the walk it comes from.
func (c *walkCache) entry(root *os.Root, now time.Time) walkEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[root.Name()]; ok && now.Sub(e.at) < walkCacheTTL && !now.Before(e.at) {
		return e
	}
	dirs, truncated := findResultDirs(root.FS(), maxDirsScanned)
	if len(c.entries) >= 16 { // one root per server; tests make more
		clear(c.entries)
	}
	e := walkEntry{at: now, dirs: dirs, truncated: truncated}
	c.entries[root.Name()] = e
	return e
}
