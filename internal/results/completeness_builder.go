package results

import (
	"fmt"
	"hash/maphash"
	"strconv"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// AntiBotFile is where CWAC's anti-bot check (src/audit_manager.py) records
// the pages it recognised as a firewall's challenge by their bodies, and
// skipped: organisation, domain, url, anti_bot_check (the vendor),
// viewport_size.
const AntiBotFile = "anti_bot.csv"

// ExpectedSite is a site the scan gave CWAC (the runner knows them), so a
// site that appears in no CWAC file is still judged, under its organisation.
type ExpectedSite struct {
	Organisation string
	URL          string
	Sector       string
}

// CompletenessBuilder judges how completely each site and organisation was
// scanned, from one read of the results (a RowVisitor for Walk; the
// SummaryBuilder feeds one). It reads pages_scanned.csv (pages per site),
// audit_log.csv (pages CWAC started), unexpected_response_codes.csv
// (refusals, rate limits, server errors, no answer), anti_bot.csv (CWAC's
// own challenge detection) and every audit CSV's page_title (challenge
// pages by title). It does not depend on the order of the files.
type CompletenessBuilder struct {
	maxPages int
	sites    []*siteState
	byURL    map[string]int32
	pages    map[uint64]pageMark
	seed     maphash.Seed
	// antiBot are anti_bot.csv's rows, matched to sites at the end (the
	// file names no base URL, and may be read before the sites are known).
	antiBot []antiBotRow
	// Counted past the bounds.
	sitesNotJudged, pagesNotJudged, antiBotNotJudged int

	file string
	kind completenessKind
	col  completenessColumns
	// lastMarked spares a row of the page marked last its lookup.
	lastMarked lastMark
	// titles are the last page titles matched and what each matched: the
	// rows of one page come together and share its title, so most rows
	// cost a comparison, not a match.
	titles    [recentTexts]challengeMatch
	nextTitle uint8 // the slot of titles the next title matched takes
}

// challengeMatch is one page title and the marker it matched (ok). Its
// zero value is already right: an empty title matches no marker.
type challengeMatch struct {
	title  string
	marker ChallengeMarker
	ok     bool
}

// challenge is MatchChallenge of title, from a recent row's answer when
// its title was the same.
func (b *CompletenessBuilder) challenge(title string) (ChallengeMarker, bool) {
	for _, t := range b.titles {
		if t.title == title {
			return t.marker, t.ok
		}
	}
	m, ok := MatchChallenge(title)
	b.titles[b.nextTitle] = challengeMatch{title: title, marker: m, ok: ok}
	b.nextTitle = (b.nextTitle + 1) % recentTexts
	return m, ok
}

type completenessKind int

const (
	ckOther completenessKind = iota
	ckPages
	ckAuditLog
	ckUnexpected
	ckAntiBot
	ckAudit
)

type completenessColumns struct {
	org, baseURL, url, pages, status, title, check int
}

// siteState is what the rows say of one site.
type siteState struct {
	org, baseURL string
	inOutput     bool // named by some CWAC file
	listed       bool // in pages_scanned.csv
	pages        int
	baseStatus   int // status of the base URL's own row (0: none)
	firstStatus  int // status of the site's first counted row, for a site that loaded no page
	resp         Responses
	marker       string // the first challenge marker matched
}

// pageMark is what was seen of one page: the site it belongs to and flags.
type pageMark struct {
	site  int32
	flags uint8
}

const (
	pageStarted   uint8 = 1 << iota // in audit_log.csv
	pageAudited                     // in an audit CSV
	pageChallenge                   // its title is a challenge marker
)

type antiBotRow struct {
	org, url, check string
}

// maxAntiBotRows bounds the anti_bot.csv rows kept for matching; rows past
// it (and rows matching no site) are counted in PagesNotJudged.
const maxAntiBotRows = 10_000

// NewCompletenessBuilder returns a builder for a scan that gave CWAC sites
// (none: judge the sites the files name) with max_links_per_domain maxPages
// (0: not known).
func NewCompletenessBuilder(sites []ExpectedSite, maxPages int) *CompletenessBuilder {
	b := &CompletenessBuilder{
		maxPages: maxPages,
		byURL:    map[string]int32{},
		pages:    map[uint64]pageMark{},
		seed:     maphash.MakeSeed(),
	}
	// The sites given are made first, in the scan's order, so that a
	// stable sort by verdict lists them in that order, before any site
	// only the files name.
	for _, s := range sites {
		b.site(s.URL, s.Organisation)
	}
	return b
}

// site returns the index of baseURL's state, made when new (org fills in an
// unknown organisation), or -1 past MaxCompletenessSites.
func (b *CompletenessBuilder) site(baseURL, org string) int32 {
	baseURL = textcap.Head(baseURL, urlpolicy.MaxURLLength)
	if i, ok := b.byURL[baseURL]; ok {
		if s := b.sites[i]; s.org == "" && org != "" {
			s.org = strings.Clone(textcap.Head(org, maxRuleIDBytes))
		}
		return i
	}
	if len(b.sites) >= MaxCompletenessSites {
		return -1
	}
	s := &siteState{org: strings.Clone(textcap.Head(org, maxRuleIDBytes)), baseURL: strings.Clone(baseURL)}
	b.sites = append(b.sites, s)
	i := int32(len(b.sites) - 1) //nolint:gosec // bounded by MaxCompletenessSites
	b.byURL[s.baseURL] = i
	return i
}

// seen marks a site as named by a CWAC file and returns it with its index;
// nil (and no index) for a row that names no site, or past the bound.
func (b *CompletenessBuilder) seen(baseURL, org string) (*siteState, int32) {
	if strings.TrimSpace(baseURL) == "" {
		return nil, 0 // a row that names no site says nothing of one
	}
	i := b.site(baseURL, org)
	if i < 0 {
		return nil, 0
	}
	s := b.sites[i]
	s.inOutput = true
	return s, i
}

func (b *CompletenessBuilder) begin(file string, r *Reader) {
	b.file = file
	b.col = completenessColumns{
		org: r.Column("organisation"), baseURL: r.Column("base_url"), url: r.Column("url"), pages: r.Column("number_of_pages"),
		status: r.Column("status_code"), title: r.Column("page_title"), check: r.Column("anti_bot_check"),
	}
	switch file {
	case PagesScannedFile:
		b.kind = ckPages
	case AuditLogFile:
		b.kind = ckAuditLog
	case UnexpectedCodeFile:
		b.kind = ckUnexpected
	case AntiBotFile:
		b.kind = ckAntiBot
	default:
		b.kind = ckOther
		if _, ok := AuditName(file); ok && b.col.baseURL >= 0 && b.col.url >= 0 {
			b.kind = ckAudit
		}
	}
}

// VisitRow reads one row of a results CSV.
func (b *CompletenessBuilder) VisitRow(file string, r *Reader, row Row) error {
	if file != b.file {
		b.begin(file, r)
	}
	switch b.kind {
	case ckPages:
		return b.pagesRow(row)
	case ckAuditLog:
		b.mark(row, pageStarted)
	case ckAudit:
		flags := pageAudited
		if m, ok := b.challenge(row.Field(b.col.title)); ok {
			flags |= pageChallenge
			if s, _ := b.seen(row.Field(b.col.baseURL), row.Field(b.col.org)); s != nil && s.marker == "" {
				s.marker = m.Name
			}
		}
		b.mark(row, flags)
	case ckUnexpected:
		return b.unexpectedRow(row)
	case ckAntiBot:
		if len(b.antiBot) >= maxAntiBotRows {
			b.antiBotNotJudged++
			return nil
		}
		b.antiBot = append(b.antiBot, antiBotRow{
			org:   strings.Clone(textcap.Head(row.Field(b.col.org), maxRuleIDBytes)),
			url:   strings.Clone(textcap.Head(row.Field(b.col.url), urlpolicy.MaxURLLength)),
			check: strings.Clone(textcap.Head(row.Field(b.col.check), maxRuleIDBytes)),
		})
	}
	return nil
}

func (b *CompletenessBuilder) pagesRow(row Row) error {
	n, err := ParseCount(row.Field(b.col.pages))
	if err != nil {
		return fmt.Errorf("number_of_pages: %w", err)
	}
	base := row.Field(b.col.baseURL)
	s, _ := b.seen(base, row.Field(b.col.org))
	if s == nil {
		if strings.TrimSpace(base) != "" {
			b.sitesNotJudged++
		}
		return nil
	}
	s.listed = true
	s.pages = int(min(int64(s.pages)+n, 1<<31-1))
	return nil
}

// mark records a page of a site with flags.
func (b *CompletenessBuilder) mark(row Row, flags uint8) {
	base, org, url := row.Field(b.col.baseURL), row.Field(b.col.org), row.Field(b.col.url)
	if l := &b.lastMarked; l.ok && l.flags&flags == flags && base == l.base && org == l.org && url == l.url {
		return // the last row's page, already marked so
	}
	s, i := b.seen(base, org)
	if s == nil {
		return
	}
	var h maphash.Hash
	h.SetSeed(b.seed)
	_, _ = h.WriteString(s.baseURL)
	_ = h.WriteByte(0)
	_, _ = h.WriteString(url)
	key := h.Sum64()
	m, ok := b.pages[key]
	if !ok {
		if len(b.pages) >= MaxCompletenessPages {
			b.pagesNotJudged++
			return
		}
		m.site = i
	}
	m.flags |= flags
	b.pages[key] = m
	b.lastMarked = lastMark{base: base, org: org, url: url, flags: m.flags, ok: true}
}

// lastMark is the page mark last recorded: its row's cells and the page's
// flags then. The rows of one page come together, and the strings a Reader
// gives for a cell equal to the last row's are that row's, so most rows
// cost three comparisons of a string with itself rather than a hash and a
// lookup. Nothing marked is ever unmarked, so it stays true.
type lastMark struct {
	base, org, url string
	flags          uint8
	ok             bool
}

func (b *CompletenessBuilder) unexpectedRow(row Row) error {
	raw := strings.TrimSpace(row.Field(b.col.status))
	if raw == "" {
		return nil // no status (or no such column): nothing to judge by
	}
	code, err := strconv.Atoi(raw)
	if err != nil {
		// pandas writes a column with a missing value as floats ("403.0").
		f, ferr := strconv.ParseFloat(raw, 64)
		if ferr != nil || f != float64(int(f)) || f < -1 || f > 999 {
			return fmt.Errorf("status_code: %q is not an HTTP status", textcap.Head(raw, 32))
		}
		code = int(f)
	}
	if code < -1 || code > 999 {
		return fmt.Errorf("status_code: %d is not an HTTP status", code)
	}
	s, _ := b.seen(row.Field(b.col.baseURL), "")
	if s == nil {
		return nil
	}
	if sameURL(row.Field(b.col.url), s.baseURL) {
		s.baseStatus = code
	}
	if costsPages(code) && s.firstStatus == 0 {
		s.firstStatus = code
	}
	switch {
	case code == 401 || code == 403:
		s.resp.Refused++
	case code == 429:
		s.resp.RateLimited++
	case code >= 500:
		s.resp.ServerErrors++
	case code == -1:
		s.resp.NoAnswer++
	}
	return nil
}

// costsPages says whether a status is one that cost a site pages rather
// than a broken link.
func costsPages(code int) bool {
	return code == -1 || code == 401 || code == 403 || code == 429 || code >= 500
}

// refused says whether a status is the site refusing the scanner.
func refused(code int) bool { return code == 401 || code == 403 || code == 429 }

// sameURL compares two URLs as CWAC writes them, ignoring a trailing slash.
func sameURL(a, b string) bool {
	return strings.TrimSuffix(strings.TrimSpace(a), "/") == strings.TrimSuffix(strings.TrimSpace(b), "/")
}
