// Package diff compares two CWAC results directories — a baseline scan's and
// a later scan's of the same sites — and says exactly which issues are new,
// fixed, unchanged or unstable.
//
// Matching follows what was measured on real CWAC runs before and after known
// edits, not CWAC's own issue_id: that id hashes the base URL string, the
// rule, the element's whole HTML and str(viewport), so it changes with a
// harmless added class, with the viewport dict's key order and with another
// spelling of the base URL, and it does not name the page. XPath targets
// renumber when a sibling disappears. So rows are grouped by audit, page URL
// (normalised), viewport width (heights vary with layout) and rule; inside a
// group they are matched on the element's HTML first, and what is left is
// paired on the target (for focus rows: the tab press). Rows CWAC produces only
// sometimes are unstable, never new or fixed: see unstable.go.
//
// The comparison streams each CSV with the results package's reader and keeps
// per issue row a fixed-size record (hashes and small ids, no strings), one
// audit at a time, in memory or (Options.SpillDir) in files, compared a part
// of the pages at a time (spill.go); rows for diff.json are produced by
// reading the CSVs again.
// It has no Kubernetes imports.
package diff

import (
	"context"
	"fmt"
	"io/fs"
	"sort"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// Change is what happened to an issue between the baseline and the scan.
type Change string

// The four changes an issue row can have.
const (
	// ChangeNew: in the scan, not in the baseline.
	ChangeNew Change = "new"
	// ChangeFixed: in the baseline, not in the scan.
	ChangeFixed Change = "fixed"
	// ChangeUnchanged: in both.
	ChangeUnchanged Change = "unchanged"
	// ChangeUnstable: a row CWAC produces only sometimes; not compared.
	ChangeUnstable Change = "unstable"
)

// Changes lists every change, in the order diff.json documents them.
var Changes = []Change{ChangeNew, ChangeFixed, ChangeUnchanged, ChangeUnstable}

// ParseChange reads a change name.
func ParseChange(s string) (Change, error) {
	for _, c := range Changes {
		if string(c) == s {
			return c, nil
		}
	}
	return "", fmt.Errorf("change %q is not one of new, fixed, unchanged, unstable", s)
}

// Options adjust Compare.
type Options struct {
	// Baseline names the baseline in the counts (a CwacScan's name, or a
	// results directory).
	Baseline string
	// Rows, when set, receives every row of the comparison, one audit at a
	// time (the scan's rows, then the baseline's). The Row is reused: copy
	// what you keep.
	Rows func(*Row) error
	// RowChanges limits the rows passed to Rows (nil: all). A side whose
	// changes are all left out is not read again.
	RowChanges map[Change]bool
	// Namespace is the scan's namespace, part of the id of each issue the
	// comparison names (see issueid.go).
	Namespace string
	// Covered, when set, says whether a decision covers one of the scan's
	// issues (internal/decision asks its decisions): a new issue it covers
	// is counted in Totals.NewDecided and in no new figure, so that
	// thresholds and notifications pass it by, and its rows say Decided.
	Covered func(Finding) bool
	// SpillDir, when set, is a directory the comparison may keep its
	// records in while it runs (files removed as soon as they are made),
	// so that its memory does not grow with the scans' issue rows: an
	// audit's CSVs are then compared a part of their pages at a time.
	SpillDir string
	// partitionBytes replaces partitionBytes (tests).
	partitionBytes int64
}

func (o Options) wants(c Change) bool {
	return o.Rows != nil && (o.RowChanges == nil || o.RowChanges[c])
}

// Result is a comparison's figures; its rows went to Options.Rows.
type Result struct {
	// Counts are the figures status and summary.json keep.
	Counts results.DiffCounts `json:"counts"`
	// Totals are the issues on each side, from which Counts add up.
	Totals Totals `json:"totals"`
	// ByRule is every rule with a change, most new first.
	ByRule []RuleChange `json:"by_rule"`
	// IssueIDs is the id of each issue row of the scan's IssueIDsAudit, in
	// file order: the baseline's id for a row the comparison matched with
	// the baseline (when the baseline kept its IssueIDsFile), a new one
	// otherwise. What the scan keeps as its own IssueIDsFile. Nil when
	// neither side has the audit; the caller closes it (Close).
	IssueIDs *IssueIDList `json:"-"`
	// IssueIDsProblem says why the baseline's ids could not be carried
	// forward ("" when they were, or the baseline kept none).
	IssueIDsProblem string `json:"-"`
}

// Totals are the two sides' issues, as their summaries count them:
// BaselineIssues = Fixed + Unchanged + UnstableBaseline and CurrentIssues =
// New + Unchanged + UnstableCurrent.
type Totals struct {
	BaselineIssues   int64 `json:"baseline_issues"`
	CurrentIssues    int64 `json:"current_issues"`
	UnstableBaseline int64 `json:"unstable_baseline"`
	UnstableCurrent  int64 `json:"unstable_current"`
	// NewDecided counts the scan's new issues a decision covers
	// (Options.Covered): in none of Counts' new figures.
	NewDecided int64 `json:"new_decided,omitempty"`
}

// RuleChange is one rule's share of the changes. Non-axe audits have no rule
// id: their rule is the audit's name, as in the summary.
type RuleChange struct {
	Audit     string `json:"audit"`
	Rule      string `json:"rule"`
	Impact    string `json:"impact,omitempty"`
	New       int64  `json:"new"`
	Fixed     int64  `json:"fixed"`
	Unchanged int64  `json:"unchanged"`
	Unstable  int64  `json:"unstable"`
}

// Compare compares the results directory cur with the baseline base (both
// file systems rooted at a CWAC results directory). It stops with the
// context's error when ctx ends.
func Compare(ctx context.Context, base, cur fs.FS, opts Options) (*Result, error) {
	c := newComparison(ctx, [2]fs.FS{base, cur}, opts)
	if err := c.compareAll(); err != nil {
		if c.res.IssueIDs != nil {
			_ = c.res.IssueIDs.Close() // the result is not returned
		}
		return nil, err
	}
	c.checkUnreadBaselineIDs()
	return c.result(), nil
}

// compareAll compares every audit.
func (c *comparison) compareAll() error {
	if err := c.readPages(); err != nil {
		return err
	}
	audits, err := c.issueAudits()
	if err != nil {
		return err
	}
	for _, a := range audits {
		if err := c.compareAudit(a); err != nil {
			return err
		}
	}
	return nil
}

// Sides of a comparison, as indexes.
const (
	baseSide = 0
	curSide  = 1
)

var sideNames = [2]string{"baseline", "scan"}

// comparison is the state of one Compare call.
type comparison struct {
	ctx  context.Context
	fsys [2]fs.FS
	opts Options

	pages pageTable
	strs  Interner
	vps   viewportCache

	res Result
	// baseIDsRead says the baseline's IssueIDsFile was read (names.go).
	baseIDsRead bool
	orgs        map[string]*orgChange
	rules       map[[2]string]*RuleChange
}

func newComparison(ctx context.Context, fsys [2]fs.FS, opts Options) *comparison {
	c := &comparison{
		ctx: ctx, fsys: fsys, opts: opts,
		pages: pageTable{ids: map[string]int32{}},
		vps:   viewportCache{widths: map[string]int{}},
		orgs:  map[string]*orgChange{},
		rules: map[[2]string]*RuleChange{},
	}
	c.res.Counts = results.DiffCounts{Baseline: opts.Baseline, NewByImpact: map[string]int64{}, FixedByImpact: map[string]int64{}}
	return c
}

// issueAudits lists the audit CSVs of either side that count issues (have a
// num_issues column), sorted, with focus_indicator_audit last: its unstable
// rule needs every other audit's page titles.
func (c *comparison) issueAudits() ([]string, error) {
	seen := map[string]bool{}
	var names []string
	for s, fsys := range c.fsys {
		entries, err := fs.ReadDir(fsys, ".")
		if err != nil {
			return nil, fmt.Errorf("reading the %s's results directory: %w", sideNames[s], err)
		}
		for _, e := range entries {
			if _, ok := results.AuditName(e.Name()); !ok || !e.Type().IsRegular() || seen[e.Name()] {
				continue
			}
			ok, err := hasColumn(fsys, e.Name(), "num_issues")
			if err != nil {
				return nil, fmt.Errorf("the %s's %w", sideNames[s], err)
			}
			if ok {
				seen[e.Name()] = true
				names = append(names, e.Name())
			}
		}
	}
	sort.Slice(names, func(i, j int) bool {
		fi, fj := names[i] == focusFile, names[j] == focusFile
		if fi != fj {
			return fj
		}
		return names[i] < names[j]
	})
	return names, nil
}

func hasColumn(fsys fs.FS, name, column string) (bool, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return false, err
	}
	defer func() { _ = f.Close() }() // read only
	r, err := results.NewReader(f)
	if err != nil {
		return false, fmt.Errorf("%s: %w", name, err)
	}
	return r.Has(column), nil
}

// result finishes the figures: organisations most new first, rules most new first.
func (c *comparison) result() *Result {
	c.countPages()
	res := c.res
	for _, o := range c.orgs {
		res.Counts.ByOrganisation = append(res.Counts.ByOrganisation, o.change())
	}
	sort.Slice(res.Counts.ByOrganisation, func(i, j int) bool {
		a, b := res.Counts.ByOrganisation[i], res.Counts.ByOrganisation[j]
		if a.New != b.New {
			return a.New > b.New
		}
		if a.Fixed != b.Fixed {
			return a.Fixed > b.Fixed
		}
		return a.Organisation < b.Organisation
	})
	res.ByRule = []RuleChange{}
	for _, r := range c.rules {
		res.ByRule = append(res.ByRule, *r)
	}
	sort.Slice(res.ByRule, func(i, j int) bool {
		a, b := res.ByRule[i], res.ByRule[j]
		if a.New != b.New {
			return a.New > b.New
		}
		if a.Fixed != b.Fixed {
			return a.Fixed > b.Fixed
		}
		if a.Audit != b.Audit {
			return a.Audit < b.Audit
		}
		return a.Rule < b.Rule
	})
	if len(res.Counts.NewByImpact) == 0 {
		res.Counts.NewByImpact = nil
	}
	if len(res.Counts.FixedByImpact) == 0 {
		res.Counts.FixedByImpact = nil
	}
	return &res
}
