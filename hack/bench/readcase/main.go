// Command readcase runs one of bench's whole-file reads in a process of its
// own, so that its CPU time and peak memory are its alone (bench starts it
// with GOMAXPROCS=1 and reads both from the kernel's accounting). It links
// only what the read needs: its resident memory is the read's, not that of
// bench's Kubernetes libraries.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/hack/bench/caseprofile"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/gcpace"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/runner"
)

// readCases are the reads readcase -case NAME -dir DIR runs.
var readCases = map[string]func(dir string) (string, error){
	// floor: read the CSV and count its lines, as wc -l does.
	"floor": func(dir string) (string, error) {
		lines := 0
		err := eachChunk(dir, func(b []byte) { lines += bytes.Count(b, []byte{'\n'}) })
		return fmt.Sprintf("%d lines", lines), err
	},
	// commas: read the CSV and find each comma in turn, as every reader
	// that splits a line into cells must, and nothing else (no quotes, no
	// cells): what the least such reader costs, under any summary.
	"commas": func(dir string) (string, error) {
		commas := 0
		err := eachChunk(dir, func(b []byte) {
			for i := bytes.IndexByte(b, ','); i >= 0; i = bytes.IndexByte(b, ',') {
				commas++
				b = b[i+1:]
			}
		})
		return fmt.Sprintf("%d commas", commas), err
	},
	// csv: a bare encoding/csv loop over the same file, records reused.
	"csv": func(dir string) (string, error) {
		f, err := os.Open(filepath.Join(dir, results.AxeCoreAuditFile))
		if err != nil {
			return "", err
		}
		defer func() { _ = f.Close() }()
		r := csv.NewReader(bufio.NewReaderSize(f, 64<<10))
		r.ReuseRecord = true
		r.FieldsPerRecord = -1
		rows := 0
		for {
			_, err := r.Read()
			if errors.Is(err, io.EOF) {
				return fmt.Sprintf("%d records", rows), nil
			}
			if err != nil {
				return "", err
			}
			rows++
		}
	},
	// rows: one Walk over the results with a visitor that only counts the
	// rows: the reader's own cost, which every other read below pays.
	"rows": func(dir string) (string, error) {
		var rows rowCounter
		if err := results.Walk(context.Background(), os.DirFS(dir), &rows); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d rows", rows), nil
	},
	// ids: one Walk that gives each issue row of the axe audit its id
	// (diff.NewIssueID of the row's parts, each page's key and each
	// viewport cell worked out once), and does nothing else: what every
	// runner pays to name the scan's issues (issue_ids.txt, SARIF's
	// fingerprints), under the summary, the reports and the rest.
	"ids": func(dir string) (string, error) {
		var ids idsOnly
		if err := results.Walk(context.Background(), os.DirFS(dir), &ids); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d ids (xor %x)", ids.n, ids.xor[:4]), nil
	},
	// ids-summary: the ids and the summary in one Walk, and nothing else:
	// the least a runner that writes summary.json and names the issues
	// does, the reports, the row index and the rest left out.
	"ids-summary": func(dir string) (string, error) {
		var ids idsOnly
		summary := results.NewSummaryBuilder(results.Options{})
		if err := results.Walk(context.Background(), os.DirFS(dir), &ids, summary); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d ids (xor %x), %d issues", ids.n, ids.xor[:4], summary.Summary().TotalIssues), nil
	},
	// summary: what cwac_get_summary computes when asked to recompute.
	"summary": func(dir string) (string, error) {
		s, err := results.Summarize(dir, results.Options{})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d issues", s.TotalIssues), nil
	},
	// walk: the runner's read without the report: summary and row index.
	"walk": func(dir string) (string, error) {
		summary, index := results.NewSummaryBuilder(results.Options{}), results.NewIndexBuilder(0)
		if err := results.Walk(context.Background(), os.DirFS(dir), summary, index); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d issues", summary.Summary().TotalIssues), nil
	},
	// runner: everything the scan pod does after CWAC exits, at the
	// collector's pace cmd/cwac-runner sets.
	"runner": func(dir string) (string, error) {
		gcpace.During()
		if err := asCWACLeftIt(dir); err != nil {
			return "", err
		}
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		s, err := runner.WriteResults(context.Background(), dir, results.Options{}, report.Meta{Title: benchName}, log)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d issues", s.TotalIssues), nil
	},
	// compare: what a scan with a baseline does before the runner's walk
	// (diff.Compare, its rows spooled to a file), here the results against
	// themselves as the baseline, with the issue ids the runner case wrote:
	// every issue found again and its id carried, as a weekly scan finds
	// most of its issues.
	"compare": func(dir string) (string, error) { return compareCase(dir, true) },
	// runner-compared: what a scan pod with a baseline does after CWAC
	// exits: the comparison, then the runner's walk, in one process (its
	// peak is the larger of the two, or more), here against the results
	// themselves as the baseline (or READCASE_BASELINE).
	"runner-compared": func(dir string) (string, error) {
		gcpace.During() // as cmd/cwac-runner
		base := dir
		if b := os.Getenv("READCASE_BASELINE"); b != "" {
			base = b
		}
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		s, err := runner.WriteResultsCompared(context.Background(), dir, base, results.Options{}, report.Meta{Title: benchName}, log)
		// The diff.json written is not left behind: the other cases would
		// take the directory for a compared scan's and read it (a million
		// rows' is 400 MB of JSON).
		if rmErr := os.Remove(filepath.Join(dir, results.DiffFile)); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) && err == nil {
			err = rmErr
		}
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d issues, %d unchanged", s.TotalIssues, s.Diff.Unchanged), nil
	},
	// runner-binary: bin/cwac-runner itself after a stand-in CWAC (see
	// runnerBinary); dir is CWAC's files alone (bench's raw results).
	"runner-binary": runnerBinary,
	// compare-in-memory: the same without a directory to compare in, as
	// the MCP server's cwac_compare_scans compares.
	"compare-in-memory": func(dir string) (string, error) { return compareCase(dir, false) },
	// runner-decided-rules: the runner, the scan judged by a decision about
	// each rule of the results across its organisation (every issue row
	// looks its rule up, and each is decided).
	"runner-decided-rules": func(dir string) (string, error) {
		return runnerDecided(dir, func(rows []sampleRow) []decision.Decision {
			var ds []decision.Decision
			seen := map[string]bool{}
			for _, r := range rows {
				if key := r.org + "\x00" + r.rule; !seen[key] {
					seen[key] = true
					ds = append(ds, benchDecision(len(ds), r.org, r.rule, ""))
				}
			}
			return ds
		})
	},
	// runner-decided-pages: the runner, the scan judged by 1,000 decisions
	// of one rule on page prefixes, one a page of the results, the others
	// under pages of no row: each row of the rule finds the prefixes its
	// page is under among all of them.
	"runner-decided-pages": func(dir string) (string, error) {
		return runnerDecided(dir, func(rows []sampleRow) []decision.Decision {
			first := rows[0]
			ds := []decision.Decision{benchDecision(0, first.org, first.rule, first.url)}
			for i := 1; i < 1000; i++ {
				ds = append(ds, benchDecision(i, first.org, first.rule, fmt.Sprintf("%s/elsewhere-%d/", strings.TrimSuffix(first.url, "/"), i)))
			}
			return ds
		})
	},
}

// benchName names what the cases make: the report's title, the decisions'
// namespace and reason.
const benchName = "bench"

// sampleRow is what the decided cases take of a row of the results.
type sampleRow struct{ org, rule, url string }

// benchDecisionsAt is the instant the decided cases judge as of.
var benchDecisionsAt = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

func benchDecision(i int, org, rule, pages string) decision.Decision {
	return decision.Decision{Ref: fmt.Sprintf("bench/d-%d", i), Namespace: benchName, Organisation: org, Kind: decision.WontFix,
		Reason: benchName, DecidedAt: benchDecisionsAt.Add(-time.Hour), Rule: rule, Pages: pages}
}

// runnerDecided runs the runner judged by the decisions made of the
// results' first 10,000 issue rows.
func runnerDecided(dir string, decide func([]sampleRow) []decision.Decision) (string, error) {
	gcpace.During() // as cmd/cwac-runner
	var rows []sampleRow
	errEnough := errors.New("enough rows")
	err := results.EachRow(filepath.Join(dir, results.AxeCoreAuditFile), func(_ *results.Reader, row results.Row) error {
		if n, _ := results.ParseNumIssues(row.Get("num_issues")); n > 0 {
			rows = append(rows, sampleRow{org: row.Get("organisation"), rule: row.Get("id"), url: row.Get("url")})
		}
		if len(rows) == 10_000 {
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return "", err
	}
	if len(rows) == 0 {
		return "", errors.New("no issue rows to decide about")
	}
	ds := decide(rows)
	if err := asCWACLeftIt(dir); err != nil {
		return "", err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := runner.WriteResultsDecided(context.Background(), dir, results.Options{}, report.Meta{Title: benchName}, log, benchName, ds, benchDecisionsAt)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d issues, %d decided (%d decisions)", s.TotalIssues, s.DecidedIssues, len(ds)), nil
}

// asCWACLeftIt removes from dir the issue ids an earlier run of the
// runner wrote there: a scan pod's runner meets CWAC's files alone, where
// an ids file would make it name the rows from that file instead (a report
// built again), a different cost. Its other files are written over whole.
func asCWACLeftIt(dir string) error {
	if err := os.Remove(filepath.Join(dir, diff.IssueIDsFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// childResult is what a child reports of its case.
type childResult struct {
	Wall   time.Duration `json:"wall"`
	Answer string        `json:"answer"`
	// PeakKiB is this process's peak resident memory (VmHWM). The kernel's
	// ru_maxrss of a child counts the parent's memory from before the exec.
	PeakKiB int64 `json:"peak_kib"`
}

// peakKiB reads VmHWM from /proc/self/status (0 where there is none).
func peakKiB() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// rowCounter counts the rows a Walk hands it, and reads none of their cells.
type rowCounter int

func (c *rowCounter) VisitRow(string, *results.Reader, results.Row) error {
	*c++
	return nil
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: readcase CASE RESULTS-DIR")
		os.Exit(2)
	}
	if err := runChild(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "readcase:", err)
		os.Exit(1)
	}
}

// runChild runs one case and prints its result as JSON.
func runChild(name, dir string) error {
	fn, ok := readCases[name]
	if !ok {
		return fmt.Errorf("no case %q", name)
	}
	stop, err := caseprofile.Start("READCASE_CPUPROFILE")
	if err != nil {
		return err
	}
	stopHeap, err := caseprofile.StartHeap("READCASE_HEAPPROFILE")
	if err != nil {
		stop()
		return err
	}
	start := time.Now()
	answer, err := fn(dir)
	stopHeap()
	stop()
	if err != nil {
		return err
	}
	wall := time.Since(start)
	peak := peakKiB()
	if childPeakKiB > 0 {
		peak = childPeakKiB
	}
	return json.NewEncoder(os.Stdout).Encode(childResult{Wall: wall, Answer: answer, PeakKiB: peak})
}

// compareCase compares the results in dir with themselves, or with the
// results in READCASE_BASELINE when it is set (by hand: every issue new or
// fixed), as the runner does (spill: in files beside its rows' spool) or
// in memory.
func compareCase(dir string, spill bool) (string, error) {
	gcpace.During() // as cmd/cwac-runner
	spool, err := os.CreateTemp("", "readcase-diff-rows-*")
	if err != nil {
		return "", err
	}
	defer func() {
		_ = spool.Close()
		_ = os.Remove(spool.Name())
	}()
	rows := diff.NewRowWriter(spool)
	opts := diff.Options{Baseline: benchName, Rows: rows.Write, Namespace: benchName}
	if spill {
		opts.SpillDir = filepath.Dir(spool.Name()) // as the runner: beside its rows' spool
	}
	base := dir
	if b := os.Getenv("READCASE_BASELINE"); b != "" {
		base = b
	}
	res, err := diff.Compare(context.Background(), os.DirFS(base), os.DirFS(dir), opts)
	if err != nil {
		return "", err
	}
	if res.IssueIDs != nil {
		defer func() { _ = res.IssueIDs.Close() }()
	}
	if err := rows.Flush(); err != nil {
		return "", err
	}
	if res.IssueIDsProblem != "" {
		return "", fmt.Errorf("the baseline's issue ids: %s", res.IssueIDsProblem)
	}
	c := res.Counts
	return fmt.Sprintf("%d unchanged, %d new, %d fixed", c.Unchanged, c.New, c.Fixed), nil
}

// eachChunk reads the axe audit CSV in 64 KiB reads, passing each to fn:
// the floors' read, which any reader of the file pays.
func eachChunk(dir string, fn func([]byte)) error {
	f, err := os.Open(filepath.Join(dir, results.AxeCoreAuditFile))
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	buf := make([]byte, 64<<10)
	for {
		n, err := f.Read(buf)
		fn(buf[:n])
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// idsOnly is the ids case's visitor: the id of each axe issue row, xored
// together so that none can be left out unseen.
type idsOnly struct {
	n         int
	xor       diff.IssueID
	reader    *results.Reader
	col       struct{ org, url, viewport, numIssues, rule, html, position int }
	url, page string
	cell      string
	width     int
}

func (v *idsOnly) VisitRow(file string, r *results.Reader, row results.Row) error {
	if file != results.AxeCoreAuditFile {
		return nil
	}
	if v.reader != r {
		v.reader = r
		v.col.org, v.col.url, v.col.viewport = r.Column("organisation"), r.Column("url"), r.Column("viewport_size")
		v.col.numIssues, v.col.rule, v.col.html, v.col.position = r.Column("num_issues"), r.Column("id"), r.Column("html"), diff.PositionColumn(r)
	}
	if n, err := results.ParseNumIssues(row.Field(v.col.numIssues)); err != nil || n <= 0 {
		return err
	}
	if url := row.Field(v.col.url); url != v.url || v.page == "" {
		v.url, v.page = url, diff.PageKey(url)
	}
	if cell := row.Field(v.col.viewport); cell != v.cell {
		vp, err := results.ParseViewport(cell)
		if err != nil {
			return err
		}
		v.cell, v.width = cell, vp.Width
	}
	p := diff.PartsOf(benchName, row.Field(v.col.org), v.page, v.width, diff.AuditRule("axe_core_audit", row.Field(v.col.rule)),
		diff.ElementHash(row.Field(v.col.html)), diff.ElementHash(row.Field(v.col.position)))
	id := diff.NewIssueID(p, 0)
	for i := range id {
		v.xor[i] ^= id[i]
	}
	v.n++
	return nil
}
