package mcpserver

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/resultspath"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// ListInput are cwac_list_scans's arguments.
type ListInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"most scans to return, newest first (default 50)"`
}

// ScanEntry is one scan in cwac_list_scans.
type ScanEntry struct {
	ScanID      string   `json:"scan_id" jsonschema:"pass to the other tools; for a directory with no CwacScan, its path"`
	Name        string   `json:"name"`
	Status      string   `json:"status"`
	AuditName   string   `json:"audit_name"`
	Timestamp   string   `json:"timestamp" jsonschema:"when the scan was created or CWAC started it (UTC)"`
	Path        string   `json:"path,omitempty" jsonschema:"results directory, relative to the results volume"`
	AuditTypes  []string `json:"audit_types"`
	FileCount   int      `json:"file_count"`
	SizeBytes   int64    `json:"size_bytes"`
	Source      string   `json:"source" jsonschema:"cwacscan, or results-dir for results with no CwacScan (run by hand)"`
	Schedule    string   `json:"schedule,omitempty" jsonschema:"the CwacScanSchedule that created the scan"`
	Baseline    string   `json:"baseline,omitempty" jsonschema:"the earlier scan this one is compared with (cwac_compare_scans)"`
	NewIssues   *int64   `json:"new_issues,omitempty" jsonschema:"issues the baseline did not have, once compared"`
	FixedIssues *int64   `json:"fixed_issues,omitempty" jsonschema:"the baseline's issues this scan no longer has, once compared"`
	Shards      *Shards  `json:"shards,omitempty" jsonschema:"a sharded scan's shards by state (only for a scan with more than one shard)"`
	// Completeness and IncompleteOrganisations say whether a finished
	// scan's figures cover every organisation completely.
	Completeness            string `json:"completeness,omitempty" jsonschema:"for a scan with results: complete, incomplete (some organisations partial, blocked or unreachable; cwac_get_summary says which and why) or unknown"`
	IncompleteOrganisations int32  `json:"incomplete_organisations,omitempty" jsonschema:"how many organisations were not scanned completely"`
}

// ListOutput is cwac_list_scans's answer.
type ListOutput struct {
	Scans []ScanEntry `json:"scans"`
	Total int         `json:"total"`
	Note  string      `json:"note,omitempty"`
}

// maxDirsScanned bounds the walk of the results volume.
const maxDirsScanned = 5000

// listScansDescription is what MCP clients show of cwac_list_scans.
const listScansDescription = "List scans, newest first: the CwacScans in this namespace " +
	"and result directories on the results volume that have no CwacScan."

func init() { defineTool("cwac_list_scans", listScansDescription, true, (*Server).listScans) }

// listScans lists the CwacScans and, from the results volume, the result
// directories no CwacScan accounts for (scans run by hand): both are scans a
// caller can read. Without the volume the CwacScans are still listed.
func (s *Server) listScans(ctx context.Context, call *callInfo, in ListInput) (ListOutput, error) {
	limit := in.Limit
	if limit == 0 {
		limit = 50
	}
	if limit < 1 || limit > 500 {
		return ListOutput{}, fmt.Errorf("Invalid limit: %d (must be 1-500)", in.Limit)
	}
	call.Target = s.cfg.Namespace + "/*"
	var notes []string
	var root *openTree
	if fsys, done, err := s.access.tree.open(ctx); err != nil {
		notes = append(notes, "The results are not available ("+s.access.tree.where()+"), so no result files are listed.")
	} else {
		defer done()
		root = &openTree{fsys: fsys, id: s.access.tree.id(), walks: s.access.tree.walks()}
	}
	if index := s.access.index(); index != nil {
		return listPage(index, root, limit, notes, s.now()), nil
	}
	scans, err := s.access.scans(ctx)
	if err != nil {
		return ListOutput{}, err
	}
	entries, claimed := scanEntries(root, scans)
	if root != nil && root.walks {
		more, note := handRunEntries(root, scans, claimed, s.now())
		entries = append(entries, more...)
		if note != "" {
			notes = append(notes, note)
		}
	}
	return newestFirst(entries, limit, notes), nil
}

// scanEntries are the CwacScans, with their results' size when the volume
// has them; claimed holds their results directories.
func scanEntries(root *openTree, scans []cwacv1alpha1.CwacScan) ([]ScanEntry, map[string]bool) {
	entries := make([]ScanEntry, 0, len(scans))
	claimed := map[string]bool{}
	for i := range scans {
		e := scanEntry(root, &scans[i])
		if e.Path != "" {
			claimed[e.Path] = true
		}
		entries = append(entries, e)
	}
	return entries, claimed
}

// scanEntry is one CwacScan's entry, with its results' size when the volume
// has them (Path is then their directory).
func scanEntry(root *openTree, scan *cwacv1alpha1.CwacScan) ScanEntry {
	e := ScanEntry{
		ScanID: scan.Name, Name: scan.Name, Status: phaseStatus(scan.Status.Phase), AuditName: scanspec.AuditName(scan),
		Timestamp: scan.CreationTimestamp.UTC().Format(time.RFC3339), Source: "cwacscan", AuditTypes: []string{},
		Schedule: scan.Labels[cwacv1alpha1.LabelSchedule], Baseline: scan.Spec.Baseline, Shards: shardsOf(scan.Status.Shards),
	}
	if sum := scan.Status.Summary; sum != nil && sum.Diff != nil {
		newIssues, fixed := sum.Diff.New, sum.Diff.Fixed
		e.NewIssues, e.FixedIssues = &newIssues, &fixed
	}
	if sum := scan.Status.Summary; sum != nil {
		e.Completeness, e.IncompleteOrganisations = completenessWord(sum.Completeness)
	}
	if p := scan.Status.ResultsPath; p != "" && root != nil && resultspath.Check(p) == nil {
		if dir, info, err := resolveResultsDirIn(root.fsys, p, e.AuditName); err == nil {
			e.Path = dir
			// A finished scan's results no longer change: their stats are remembered.
			addDirStats(root, &e, info, func(time.Time) bool { return scan.Status.Phase.Finished() })
		}
	}
	return e
}

// listPage is cwac_list_scans from the scan index: the newest limit of the
// scans and the results directories no scan claims, merged in the order
// newestFirst gives, and only their results directories looked up.
func listPage(index *scanIndex, root *openTree, limit int, notes []string, now time.Time) ListOutput {
	scans, total := index.newest(limit)
	var handRun []handRunDir
	if root != nil && root.walks {
		var truncated bool
		handRun, truncated = index.unclaimed(root.fsys, root.id, now)
		if truncated {
			notes = append(notes, fmt.Sprintf("Only the first %d result directories on the volume were looked at.", maxDirsScanned))
		}
	}
	total += len(handRun)
	out := ListOutput{Total: total, Scans: make([]ScanEntry, 0, min(limit, total)), Note: strings.Join(notes, " ")}
	for len(out.Scans) < limit && (len(scans) > 0 || len(handRun) > 0) {
		takeScan := len(handRun) == 0
		if !takeScan && len(scans) > 0 {
			ts, hs := scans[0].CreationTimestamp.UTC().Format(time.RFC3339), handRunTimestamp(handRun[0])
			takeScan = ts > hs || (ts == hs && scans[0].Name < handRun[0].Path)
		}
		if takeScan {
			out.Scans = append(out.Scans, scanEntry(root, scans[0]))
			scans = scans[1:]
			continue
		}
		out.Scans = append(out.Scans, handRunEntry(root, handRun[0], now))
		handRun = handRun[1:]
	}
	if total > limit {
		out.Note = strings.TrimSpace(out.Note + fmt.Sprintf(" Showing the newest %d of %d.", limit, total))
	}
	return out
}

// handRunEntries are the result directories on the volume that belong to no
// listed scan.
func handRunEntries(root *openTree, scans []cwacv1alpha1.CwacScan, claimed map[string]bool, now time.Time) ([]ScanEntry, string) {
	dirs, truncated := resultDirsCache.find(root.fsys, root.id, now)
	note := ""
	if truncated {
		note = fmt.Sprintf("Only the first %d result directories on the volume were looked at.", maxDirsScanned)
	}
	var entries []ScanEntry
	for _, d := range dirs {
		if claimed[d.Path] || belongsToListedScan(d.Path, scans) {
			continue
		}
		entries = append(entries, handRunEntry(root, d, now))
	}
	return entries, note
}

// handRunEntry is the entry of a results directory no scan claims.
func handRunEntry(root *openTree, d handRunDir, now time.Time) ScanEntry {
	e := ScanEntry{ScanID: d.Path, Name: path.Base(d.Path), Status: "complete", AuditName: d.AuditName, Path: d.Path,
		Source: "results-dir", AuditTypes: []string{}, Timestamp: handRunTimestamp(d)}
	// No scan says whether CWAC is done: stats are remembered once the directory has settled.
	addDirStats(root, &e, nil, func(modTime time.Time) bool { return now.Sub(modTime) > settledAfter })
	return e
}

// addDirStats fills an entry's file count, size and audit types, from
// dirStatsCache when the directory is unchanged since they were counted;
// info is the directory's, when already looked up; settled says whether a
// directory last modified at modTime may be cached.
func addDirStats(root *openTree, e *ScanEntry, info fs.FileInfo, settled func(modTime time.Time) bool) {
	if info == nil {
		var err error
		if info, err = fs.Stat(root.fsys, e.Path); err != nil {
			return
		}
	}
	if !info.IsDir() {
		return
	}
	key := root.id + "\x00" + e.Path
	st, ok := dirStatsCache.get(key, info.ModTime())
	if !ok {
		sub, err := fs.Sub(root.fsys, e.Path)
		if err != nil {
			return
		}
		st = statDir(sub)
		if settled(info.ModTime()) {
			dirStatsCache.put(key, info.ModTime(), st)
		}
	}
	e.FileCount, e.SizeBytes, e.AuditTypes = st.FileCount, st.SizeBytes, slices.Clone(st.AuditTypes)
}

// openTree is the results tree as one cwac_list_scans call reads it.
type openTree struct {
	fsys  fs.FS
	id    string // resultsTree.id
	walks bool   // resultsTree.walks
}

// belongsToListedScan: older result dirs of a listed scan's own directory.
func belongsToListedScan(p string, scans []cwacv1alpha1.CwacScan) bool {
	for i := range scans {
		if strings.HasPrefix(p, scanspec.ScanDir(&scans[i])+"/") {
			return true
		}
	}
	return false
}

// newestFirst sorts the entries and keeps the newest limit of them.
func newestFirst(entries []ScanEntry, limit int, notes []string) ListOutput {
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].Timestamp != entries[j].Timestamp {
			return entries[i].Timestamp > entries[j].Timestamp
		}
		return entries[i].ScanID < entries[j].ScanID
	})
	out := ListOutput{Total: len(entries), Scans: entries, Note: strings.Join(notes, " ")}
	if len(out.Scans) > limit {
		out.Scans = out.Scans[:limit]
		out.Note = strings.TrimSpace(out.Note + fmt.Sprintf(" Showing the newest %d of %d.", limit, out.Total))
	}
	if out.Scans == nil {
		out.Scans = []ScanEntry{}
	}
	return out
}
