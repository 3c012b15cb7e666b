package results

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Signals are what CWAC records besides issues, read from the same walk
// as the summary: template issues (one fix for many pages), page titles
// (WCAG 2.4.2), the broken responses met while crawling and the pages'
// reading level (information, not issues). Each part is nil when the CSV
// it comes from is not in the results.
type Signals struct {
	Templates   *TemplateSignals    `json:"templates,omitempty"`
	Titles      *TitleSignals       `json:"page_titles,omitempty"`
	Responses   *ResponseSignals    `json:"broken_responses,omitempty"`
	Readability *ReadabilitySignals `json:"readability,omitempty"`
}

// Files the signals are read from.
const (
	AxeCoreAuditFile  = "axe_core_audit.csv"
	TitleAuditFile    = "title_audit.csv"
	LanguageAuditFile = "language_audit.csv"
)

// SignalFiles are the CSVs a SignalsBuilder reads: a caller that wants
// only the signals walks these (WalkNamed) and no other.
var SignalFiles = []string{AuditLogFile, AxeCoreAuditFile, LanguageAuditFile, PagesScannedFile, TitleAuditFile, UnexpectedCodeFile}

// Bounds on what a SignalsBuilder keeps, whatever the CSVs hold (a scan
// pod writes them): real scans stay far inside them.
const (
	// MaxSignalOrganisations is how many organisations are told apart;
	// the figures of others are counted under OtherKey.
	MaxSignalOrganisations = 20_000
	// MaxSignalItems caps each list a SignalsBuilder keeps (template
	// groups, duplicate titles, pages without a title, broken responses,
	// pages' reading levels); the totals still count everything.
	MaxSignalItems = 10_000
	// MaxSignalPages is how many distinct pages are told apart (by a
	// 64-bit hash) for the titles and the reading levels; a row of a page
	// past it is counted as a new page.
	MaxSignalPages = 1_000_000
	// maxSignalURLBytes and maxSignalTextBytes cut the URLs and the texts
	// (titles, HTML, help) a SignalsBuilder keeps.
	maxSignalURLBytes  = 384
	maxSignalTextBytes = 256
)

// SummarySignalItems is how many items of each list the summary keeps
// (summary.json is read whole; the MCP tools and the report read the CSVs).
const SummarySignalItems = 10

// SignalsBuilder reads the signals as a RowVisitor and FileVisitor, beside
// the summary's and the report's builders in one Walk.
type SignalsBuilder struct {
	seed        maphash.Seed
	orgs        *orgNames
	templates   *templateBuilder
	titles      *titleBuilder
	responses   *responseBuilder
	readability *readabilityBuilder
	file        string
	visit       func(Row) // the current file's row handler (nil: not a signal file)
}

// NewSignalsBuilder returns a builder; feed it to Walk, then call Signals.
func NewSignalsBuilder() *SignalsBuilder {
	seed := maphash.MakeSeed()
	orgs := &orgNames{names: map[string]string{}}
	return &SignalsBuilder{
		seed:        seed,
		orgs:        orgs,
		templates:   newTemplateBuilder(seed, orgs),
		titles:      newTitleBuilder(seed, orgs),
		responses:   newResponseBuilder(orgs),
		readability: newReadabilityBuilder(seed, orgs),
	}
}

// BeginFile picks the handler for the file's rows.
func (b *SignalsBuilder) BeginFile(file string, r *Reader) error {
	b.file, b.visit = file, nil
	switch file {
	case AxeCoreAuditFile:
		b.visit = b.templates.begin(r)
	case TitleAuditFile:
		b.visit = b.titles.begin(r)
	case UnexpectedCodeFile:
		b.visit = b.responses.begin(r)
	case AuditLogFile, PagesScannedFile:
		b.visit = b.responses.beginSites(r)
	case LanguageAuditFile:
		b.visit = b.readability.begin(r)
	}
	return nil
}

// EndFile does nothing: every file's figures are final at its last row.
func (b *SignalsBuilder) EndFile(string, *Reader) error { return nil }

// VisitRow hands a row to the current file's handler.
func (b *SignalsBuilder) VisitRow(file string, r *Reader, row Row) error {
	if file != b.file {
		if err := b.BeginFile(file, r); err != nil { // fed by something other than Walk
			return err
		}
	}
	if b.visit != nil {
		b.visit(row)
	}
	return nil
}

// Signals returns what was read, every list kept at most limit long
// (limit < 0: as long as the builder kept it, MaxSignalItems).
func (b *SignalsBuilder) Signals(limit int) *Signals {
	if limit < 0 {
		limit = MaxSignalItems
	}
	return &Signals{
		Templates:   b.templates.result(limit),
		Titles:      b.titles.result(limit),
		Responses:   b.responses.result(limit),
		Readability: b.readability.result(limit),
	}
}

// orgNames interns organisation names, at most MaxSignalOrganisations of
// them: a name past it is OtherKey, so that every map keyed by
// organisation stays as bounded.
type orgNames struct {
	names map[string]string
}

func (o *orgNames) name(org string) string {
	if s, ok := o.names[org]; ok {
		return s
	}
	if len(o.names) >= MaxSignalOrganisations {
		return OtherKey
	}
	s := keep(org, maxRuleIDBytes)
	o.names[strings.Clone(org)] = s
	return s
}

// keep is s cut to n bytes and copied, so that it pins no row's memory.
func keep(s string, n int) string { return strings.Clone(textcap.Head(s, n)) }

// sortedOrgs returns m's values sorted by organisation name.
func sortedOrgs[T any](m map[string]*T, name func(*T) string) []T {
	out := make([]T, 0, len(m))
	for _, v := range m {
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b T) int { return cmp.Compare(name(&a), name(&b)) })
	return out
}

// viewportLabel is "320x450" for CWAC's viewport_size cell, or the cell
// itself (cut) when it is not one.
func viewportLabel(cell string) string {
	if vp, err := ParseViewport(cell); err == nil {
		return strconv.Itoa(vp.Width) + "x" + strconv.Itoa(vp.Height)
	}
	return keep(cell, 64)
}

// WalkNamed is Walk over the named CSVs alone (those that are there: a
// missing one is skipped), for a caller that needs a few files of a large
// results directory.
func WalkNamed(ctx context.Context, fsys fs.FS, names []string, visitors ...RowVisitor) error {
	files, err := WalkFiles(fsys)
	if err != nil {
		return err
	}
	for _, name := range files {
		if !slices.Contains(names, name) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := walkFile(ctx, fsys, name, visitors); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
				return err
			}
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// cellBytes is a row's cell i as bytes, valid during the row's visit only
// (nil for a column that is not there): the signals hash long cells (HTML,
// URLs, titles) and keep only their head, so no string of the whole cell
// is made for each row.
func cellBytes(row Row, i int) []byte {
	if i < 0 {
		return nil
	}
	return row.r.rr.cell(i)
}

// cellHead is cell i cut to n bytes (as keep cuts), made from its head alone.
func cellHead(row Row, i, n int) string {
	b := cellBytes(row, i)
	if len(b) > n+utf8.UTFMax {
		b = b[:n+utf8.UTFMax] // enough for Head to cut at a rune boundary and mark the cut
	}
	return keep(string(b), n)
}

// hashBytes hashes parts, each ended by a 0 byte so that parts cannot
// run into each other.
func hashBytes(seed maphash.Seed, parts ...[]byte) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	for _, p := range parts {
		_, _ = h.Write(p) // never fails
		_ = h.WriteByte(0)
	}
	return h.Sum64()
}
