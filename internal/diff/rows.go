package diff

import (
	"fmt"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// Row is one change as diff.json lists it: what a person needs to find the
// issue again. Issues is how many of the row's issues (CWAC's num_issues)
// the change counts, so summing Issues over the rows of one change gives
// that change's count.
type Row struct {
	Change Change `json:"change"`
	// Page is "added" or "removed" when only one scan scanned the page: its
	// issues are new or fixed because the page came or went.
	Page string `json:"page,omitempty"`
	// Reason says why an unstable row was not compared.
	Reason string `json:"reason,omitempty"`
	// MatchedOn says how an unchanged row was found in the baseline: "html"
	// (the same element HTML), or "target" (the HTML changed, the position
	// did not).
	MatchedOn     string `json:"matched_on,omitempty"`
	Audit         string `json:"audit"`
	Organisation  string `json:"organisation"`
	URL           string `json:"url"`
	ViewportWidth int    `json:"viewport_width"`
	Rule          string `json:"rule"`
	Impact        string `json:"impact,omitempty"`
	Target        string `json:"target,omitempty"`
	HTML          string `json:"html,omitempty"`
	Help          string `json:"help,omitempty"`
	HelpURL       string `json:"help_url,omitempty"`
	Issues        int64  `json:"issues"`
	// Decided says a decision covered the new issue when the scan was
	// compared: it is in no new figure (Totals.NewDecided counts it).
	Decided bool `json:"decided,omitempty"`
	// IssueID is the issue's id (see issueid.go), on the rows of
	// IssueIDsAudit: a fixed row's is the baseline's; an unchanged row's
	// is the baseline's too, carried forward.
	IssueID string `json:"issue_id,omitempty"`
}

// Caps on a row's cells: an element's HTML can be kilobytes.
const (
	MaxHTMLBytes   = 2000
	maxTargetBytes = 1000
	maxTextBytes   = 1000
)

// emit reads the audit's CSVs again and passes each issue row's changes to
// Options.Rows: the scan's side (new, unchanged, unstable), then the
// baseline's (fixed, unstable).
func (c *comparison) emit(a *auditState) error {
	sides := []struct {
		side    int
		changes []Change
	}{
		{curSide, []Change{ChangeNew, ChangeUnchanged, ChangeUnstable}},
		{baseSide, []Change{ChangeFixed, ChangeUnstable}},
	}
	out := &Row{}
	for _, sd := range sides {
		wanted := false
		for _, ch := range sd.changes {
			wanted = wanted || c.opts.wants(ch)
		}
		if !wanted || (sd.side == baseSide && !a.baseListed) {
			continue
		}
		s := sd.side
		k := 0
		ids, err := a.ids.reader(s)
		if err != nil {
			return fmt.Errorf("comparing %s: %w", a.name, err)
		}
		err = c.eachRow(a, s, func(cols *cells, row results.Row, sc scanned) error {
			if sc.issues <= 0 {
				return nil
			}
			g, ok := a.groups[groupKey{page: sc.page, width: int32(sc.width)}]
			if k >= a.n[s] || !ok {
				return fmt.Errorf("changed while it was being compared")
			}
			o, other := a.outcomeOf(s, int32(k), sc.issues)
			if o.check != checkOf(ElementHash(row.Field(cols.html)), g, sc.issues) {
				return fmt.Errorf("changed while it was being compared")
			}
			var id IssueID
			if ids != nil {
				var err error
				if id, err = ids.next(a.parts.of(sc.page)); err != nil {
					return err
				}
			}
			k++
			return c.emitRecord(s, o, sc.issues, other, out, func() {
				fill(out, a, cols, row, sc)
				if ids != nil {
					out.IssueID = id.String()
				}
			})
		})
		if err != nil {
			return err
		}
		if k != a.n[s] {
			return fmt.Errorf("the %s's %s changed while it was being compared", sideNames[s], a.name)
		}
	}
	return nil
}

// fill sets the row's cells from the CSV row.
func fill(out *Row, a *auditState, cols *cells, row results.Row, sc scanned) {
	help := row.Field(cols.help)
	if help == "" {
		help = row.Field(cols.description)
	}
	if help == "" {
		help = results.RuleDescription(a.audit)
	}
	*out = Row{
		Audit: a.audit, Organisation: textcap.Head(row.Field(cols.organisation), maxTextBytes), URL: textcap.Head(row.Field(cols.url), urlpolicy.MaxURLLength),
		ViewportWidth: sc.width, Rule: textcap.Head(sc.rule, maxTextBytes), Impact: textcap.Head(row.Field(cols.impact), maxTextBytes),
		Target: textcap.Head(row.Field(cols.target), maxTargetBytes), HTML: textcap.Head(row.Field(cols.html), MaxHTMLBytes),
		Help: textcap.Head(help, maxTextBytes), HelpURL: textcap.Head(row.Field(cols.helpURL), urlpolicy.MaxURLLength),
	}
}

// emitRecord passes an issue row's changes (its outcome o, its issues n,
// the issues of the row it matched), as counted by count, in out, which
// fill sets to the row's cells (and id) before the first: a row with
// nothing to list (a baseline row found again) is not filled.
func (c *comparison) emitRecord(s int, o outcome, n, other int64, out *Row, fill func()) error {
	filled := false
	var reason, matchedOn, page string
	send := func(ch Change, n int64) error {
		if !c.opts.wants(ch) || n <= 0 {
			return nil
		}
		if !filled {
			fill()
			filled = true
		}
		out.Change, out.Issues, out.Decided = ch, n, ch == ChangeNew && o.decided
		out.Reason, out.MatchedOn, out.Page = reason, matchedOn, page
		return c.opts.Rows(out)
	}
	mine := ChangeFixed
	if s == curSide {
		mine = ChangeNew
	}
	switch o.state {
	case stateUnstable:
		reason = unstableReasons[o.how]
		return send(ChangeUnstable, n)
	case stateMatched:
		if s == curSide {
			matchedOn = "html"
			if o.how == howTarget {
				matchedOn = "target"
			}
			if err := send(ChangeUnchanged, min(n, other)); err != nil {
				return err
			}
			matchedOn = ""
		}
		return send(mine, n-other)
	}
	if o.how == howPageOnly {
		page = "removed"
		if s == curSide {
			page = "added"
		}
	}
	return send(mine, n)
}
