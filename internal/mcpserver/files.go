package mcpserver

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// resolveResultsDirIn is resolveResultsDir in a tree already open, with
// resultsPath already checked by resultspath.Check. It also returns the
// directory's FileInfo when it had to look it up anyway (nil otherwise).
func resolveResultsDirIn(fsys fs.FS, resultsPath, auditName string) (string, fs.FileInfo, error) {
	if _, _, ok := cwac.ParseResultsDirName(path.Base(resultsPath)); ok {
		if info, err := fs.Stat(fsys, resultsPath); err == nil && info.IsDir() {
			return resultsPath, info, nil
		}
		return "", nil, fmt.Errorf("results directory %s is missing from the results", resultsPath)
	}
	entries, err := fs.ReadDir(fsys, resultsPath)
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

// walkCache remembers findResultDirs' answer per results tree for walkCacheTTL.
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

// find returns the results directories in the tree fsys (tree.id() id),
// walking it at most once per walkCacheTTL. The answer is shared: callers
// must not modify it.
func (c *walkCache) find(fsys fs.FS, id string, now time.Time) ([]handRunDir, bool) {
	e := c.entry(fsys, id, now)
	return e.dirs, e.truncated
}

// entry is find's answer with the time of the walk it comes from.
func (c *walkCache) entry(fsys fs.FS, id string, now time.Time) walkEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[id]; ok && now.Sub(e.at) < walkCacheTTL && !now.Before(e.at) {
		return e
	}
	dirs, truncated := findResultDirs(fsys, maxDirsScanned)
	if len(c.entries) >= 16 { // one root per server; tests make more
		clear(c.entries)
	}
	e := walkEntry{at: now, dirs: dirs, truncated: truncated}
	c.entries[id] = e
	return e
}
