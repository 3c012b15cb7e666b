package cireport

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// AxeAuditFile is the CSV both formats read (see the package doc).
const AxeAuditFile = "axe_core_audit.csv"

// Caps on what one issue carries into either format: an element's HTML can
// be kilobytes, and whoever can write the results volume chooses every cell.
const (
	maxHTMLBytes = diff.MaxHTMLBytes
	maxTextBytes = 1000
	maxURLBytes  = 2048
)

// issue is one row of the axe audit as both formats see it, cells capped.
type issue struct {
	organisation, url, title string
	width                    int
	rule, impact             string
	help, helpURL            string
	description              string
	target, html             string
	tags                     []string
	issues                   int64
	// identity is the row's page, width, rule, element HTML and target in
	// the forms the baseline comparison matches on, uncapped: see identity.go.
	identity identity
}

// readIssues passes each row of the axe audit to fn, in file order. A
// results directory without the audit (a scan that ran none) has no rows;
// a row that cannot be read is an error naming the file and row.
func readIssues(fsys fs.FS, fn func(*issue) error) error {
	if _, err := fs.Stat(fsys, AxeAuditFile); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	n := 0
	err := results.EachRowFS(fsys, AxeAuditFile, func(r *results.Reader, row results.Row) error {
		n++
		is, err := parseIssue(r, row)
		if err != nil {
			return fmt.Errorf("row %d: %w", n, err)
		}
		return fn(is)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", AxeAuditFile, err)
	}
	return nil
}

func parseIssue(r *results.Reader, row results.Row) (*issue, error) {
	vp, err := results.ParseViewport(row.Get("viewport_size"))
	if err != nil {
		return nil, err
	}
	n, err := results.ParseNumIssues(row.Get("num_issues"))
	if err != nil {
		return nil, err
	}
	tags, err := results.ParseTags(row.Get("tags"))
	if err != nil {
		return nil, err
	}
	if len(tags) > maxTags {
		tags = tags[:maxTags]
	}
	for i, t := range tags {
		tags[i] = textcap.Head(strings.TrimSpace(t), maxTagBytes)
	}
	url := row.Get("url")
	rule := row.Get("id")
	html := row.Get("html")
	target := diff.ElementTarget(r, row)
	is := &issue{
		organisation: textcap.Head(row.Get("organisation"), maxTextBytes),
		url:          textcap.Head(url, maxURLBytes),
		title:        textcap.Head(row.Get("page_title"), maxTextBytes),
		width:        vp.Width,
		rule:         textcap.Head(rule, maxTextBytes),
		impact:       textcap.Head(row.Get("impact"), maxTextBytes),
		help:         textcap.Head(row.Get("help"), maxTextBytes),
		helpURL:      textcap.Head(row.Get("helpUrl"), maxURLBytes),
		description:  textcap.Head(row.Get("description"), maxTextBytes),
		target:       textcap.Head(row.Get("target"), maxTextBytes),
		html:         textcap.Head(html, maxHTMLBytes),
		tags:         tags,
		issues:       n,
	}
	is.identity = identityOf(row.Get("organisation"), url, vp.Width, rule, html, target)
	return is, nil
}

// Caps on a rule's tags: axe gives a rule a dozen short ones.
const (
	maxTags     = 64
	maxTagBytes = 64
)
