package diff

import (
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// elementKey is one element of a page across viewports: the same page, rule
// and HTML found at two widths counts once among new or fixed elements.
type elementKey struct {
	page int32
	rule int32
	html uint64
}

// count adds one partition's matched records to the figures (an element
// is of one page, so of one partition). A matched pair
// whose num_issues differ (never for CWAC's audits, which write 1 per row)
// counts the smaller as unchanged and the difference as new or fixed, so
// both sides always add up.
func (c *comparison) count(a *auditState) {
	var elements [2]map[elementKey]struct{}
	for s := range a.recs {
		elements[s] = map[elementKey]struct{}{}
		for i := range int32(a.recs[s].len()) {
			r := a.recs[s].at(i)
			n := r.issues
			if s == baseSide {
				c.res.Totals.BaselineIssues += n
			} else {
				c.res.Totals.CurrentIssues += n
			}
			rule := c.ruleChange(a, r)
			switch r.state {
			case stateUnstable:
				c.res.Counts.Unstable += n
				rule.Unstable += n
				if s == baseSide {
					c.res.Totals.UnstableBaseline += n
				} else {
					c.res.Totals.UnstableCurrent += n
				}
			case stateMatched:
				p := a.recs[1-s].at(r.partner)
				if s == curSide {
					u := min(n, p.issues)
					c.res.Counts.Unchanged += u
					rule.Unchanged += u
					c.org(r).Unchanged += u
				}
				if excess := n - p.issues; excess > 0 && !c.decided(a, s, i, excess) {
					c.addChange(s, r, excess, rule)
				}
			default:
				if c.decided(a, s, i, n) {
					continue
				}
				c.addChange(s, r, n, rule)
				elements[s][elementKey{page: a.info[r.group].key.page, rule: r.rule, html: r.html}] = struct{}{}
				if r.how == howPageOnly && s == curSide {
					c.res.Counts.NewOnAddedPages += n
				} else if r.how == howPageOnly {
					c.res.Counts.FixedOnRemovedPages += n
				}
			}
		}
	}
	c.res.Counts.FixedElements += int64(len(elements[baseSide]))
	c.res.Counts.NewElements += int64(len(elements[curSide]))
}

// decided reports whether a decision covers the scan's record i of the
// audit (Options.Covered; never a baseline's record), and if so marks it
// and counts its n new issues as decided.
func (c *comparison) decided(a *auditState, s int, i int32, n int64) bool {
	if s != curSide || c.opts.Covered == nil {
		return false
	}
	r := a.recs[s].at(i)
	f := Finding{Namespace: c.opts.Namespace, Organisation: c.strs.Text(r.org), Element: r.html,
		Rule: c.shownRule(r), URL: c.pages.info[a.info[r.group].key.page].key}
	if ids := a.ids.part[s]; ids != nil {
		f.ID = ids[i]
	}
	if !c.opts.Covered(f) {
		return false
	}
	r.decided = true
	c.res.Totals.NewDecided += n
	return true
}

// shownRule is the record's rule as people and decisions name it: the axe
// rule id, or the audit's name (the matching rule without its split).
func (c *comparison) shownRule(r *record) string {
	shown, _, _ := strings.Cut(c.strs.Text(r.rule), "\x00")
	return shown
}

// addChange counts n issues of r as new (the scan's side) or fixed (the baseline's).
func (c *comparison) addChange(s int, r *record, n int64, rule *RuleChange) {
	impact := c.strs.Text(r.impact)
	org := c.org(r)
	if s == curSide {
		c.res.Counts.New += n
		rule.New += n
		org.New += n
		if impact != "" {
			c.res.Counts.NewByImpact[impact] += n
		}
		if rank := results.ImpactRank(impact); rank < len(org.newByRank) {
			org.newByRank[rank] += n
		}
		return
	}
	c.res.Counts.Fixed += n
	rule.Fixed += n
	org.Fixed += n
	if impact != "" {
		c.res.Counts.FixedByImpact[impact] += n
	}
}

// orgChange is an organisation's share of the counts while they are
// counted: its new issues by impact are kept by rank (results.ImpactRank),
// so only axe-core's four impacts are counted per organisation whatever a
// CSV's impact cells hold.
type orgChange struct {
	results.OrganisationChange
	newByRank [4]int64
}

// change is the organisation's share as the results list it.
func (o *orgChange) change() results.OrganisationChange {
	out := o.OrganisationChange
	for rank, impact := range results.Impacts() {
		if n := o.newByRank[rank]; n > 0 {
			if out.NewByImpact == nil {
				out.NewByImpact = map[string]int64{}
			}
			out.NewByImpact[impact] = n
		}
	}
	return out
}

func (c *comparison) org(r *record) *orgChange {
	name := c.strs.Text(r.org)
	o := c.orgs[name]
	if o == nil {
		o = &orgChange{OrganisationChange: results.OrganisationChange{Organisation: name}}
		c.orgs[name] = o
	}
	return o
}

func (c *comparison) ruleChange(a *auditState, r *record) *RuleChange {
	shown := c.shownRule(r)
	key := [2]string{a.audit, shown}
	rc := c.rules[key]
	if rc == nil {
		rc = &RuleChange{Audit: a.audit, Rule: shown}
		c.rules[key] = rc
	}
	impact := c.strs.Text(r.impact)
	// A rule shows its worst impact; none or another ranks after every
	// impact, so it never replaces one.
	if results.ImpactRank(impact) < results.ImpactRank(rc.Impact) {
		rc.Impact = impact
	}
	return rc
}

// countPages counts the pages only one side scanned.
func (c *comparison) countPages() {
	for i := range c.pages.info {
		p := &c.pages.info[i]
		switch {
		case p.scanned[curSide] && !p.scanned[baseSide]:
			c.res.Counts.PagesAdded++
		case p.scanned[baseSide] && !p.scanned[curSide]:
			c.res.Counts.PagesRemoved++
		}
	}
}
