package results

import (
	"cmp"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Reading level, from language_audit.csv: CWAC's language audit measures
// the main content of pages that read as an article (Mozilla's Readability
// decides), as a Flesch-Kincaid grade level and a SMOG grade, the school
// grade a reader needs. It is information, not an issue: no WCAG success
// criterion sets a grade (3.1.5 Reading Level, AAA, asks for
// lower-secondary when content is harder). CWAC writes the same figures
// for each viewport; a page is counted once.

// PageReadability is one page's reading level.
type PageReadability struct {
	Organisation       string  `json:"organisation"`
	BaseURL            string  `json:"base_url"`
	URL                string  `json:"url"`
	Title              string  `json:"title,omitempty"`
	FleschKincaidGrade float64 `json:"flesch_kincaid_grade"`
	SMOGGrade          float64 `json:"smog_grade"`
	Sentences          int64   `json:"sentences"`
	WordsPerSentence   float64 `json:"words_per_sentence"`
	SyllablesPerWord   float64 `json:"syllables_per_word"`
}

// GradeStats are one organisation's grades over its measured pages.
type GradeStats struct {
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	Max    float64 `json:"max"`
}

// OrganisationReadability is one organisation's reading level.
type OrganisationReadability struct {
	Organisation  string     `json:"organisation"`
	Pages         int64      `json:"pages"`
	FleschKincaid GradeStats `json:"flesch_kincaid_grade"`
	SMOG          GradeStats `json:"smog_grade"`
}

// ReadabilitySignals are a scan's reading levels: per organisation, and per
// page, hardest first (by Flesch-Kincaid grade).
type ReadabilitySignals struct {
	Pages          int64                     `json:"pages"`
	ByOrganisation []OrganisationReadability `json:"by_organisation"`
	List           []PageReadability         `json:"list"`
	// Unreadable counts rows whose grades are not numbers (not counted).
	Unreadable int64 `json:"unreadable,omitempty"`
}

type orgGrades struct {
	pages    int64
	fk, smog []float64
}

type readabilityBuilder struct {
	seed       maphash.Seed
	orgs       *orgNames
	seen       bool
	pages      map[uint64]struct{}
	byOrg      map[string]*orgGrades
	values     int // grades kept in byOrg, all organisations together
	list       []PageReadability
	total      int64
	unreadable int64
	col        struct{ org, baseURL, url, title, fk, smog, sentences, wps, spw int }
}

func newReadabilityBuilder(seed maphash.Seed, orgs *orgNames) *readabilityBuilder {
	return &readabilityBuilder{seed: seed, orgs: orgs, pages: map[uint64]struct{}{}, byOrg: map[string]*orgGrades{}}
}

func (b *readabilityBuilder) begin(r *Reader) func(Row) {
	b.seen = true
	c := &b.col
	c.org, c.baseURL, c.url, c.title = r.Column("organisation"), r.Column("base_url"), r.Column("url"), r.Column("page_title")
	c.fk, c.smog, c.sentences = r.Column("flesch_kincaid_gl"), r.Column("smog_gl"), r.Column("num_sentences")
	c.wps, c.spw = r.Column("words_per_sentence"), r.Column("syllables_per_word")
	return b.row
}

// grade parses a figure: a finite number, else false.
func grade(cell string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(cell), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func (b *readabilityBuilder) row(row Row) {
	c := &b.col
	page := hashBytes(b.seed, cellBytes(row, c.org), cellBytes(row, c.baseURL), cellBytes(row, c.url))
	if _, dup := b.pages[page]; dup {
		return
	}
	fk, okFK := grade(row.Field(c.fk))
	smog, okSMOG := grade(row.Field(c.smog))
	if !okFK || !okSMOG {
		b.unreadable++
		return
	}
	if len(b.pages) < MaxSignalPages {
		b.pages[page] = struct{}{}
	}
	b.total++
	org := b.orgs.name(cellHead(row, c.org, maxRuleIDBytes))
	g := b.byOrg[org]
	if g == nil {
		g = &orgGrades{}
		b.byOrg[org] = g
	}
	g.pages++
	// Every grade is kept for the medians, up to MaxSignalPages in all.
	if b.values < MaxSignalPages {
		g.fk, g.smog = append(g.fk, fk), append(g.smog, smog)
		b.values++
	}
	if len(b.list) < MaxSignalItems {
		p := PageReadability{Organisation: org, BaseURL: cellHead(row, c.baseURL, maxSignalURLBytes), URL: cellHead(row, c.url, maxSignalURLBytes),
			Title: cellHead(row, c.title, maxSignalTextBytes), FleschKincaidGrade: fk, SMOGGrade: smog}
		p.WordsPerSentence, _ = grade(row.Field(c.wps))
		p.SyllablesPerWord, _ = grade(row.Field(c.spw))
		if n, err := ParseCount(row.Field(c.sentences)); err == nil {
			p.Sentences = n
		}
		b.list = append(b.list, p)
	}
}

// stats are the median, mean and maximum of v (which it sorts).
func stats(v []float64) GradeStats {
	if len(v) == 0 {
		return GradeStats{}
	}
	slices.Sort(v)
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return GradeStats{Median: round2(med), Mean: round2(sum / float64(len(v))), Max: round2(v[len(v)-1])}
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

func (b *readabilityBuilder) result(limit int) *ReadabilitySignals {
	if !b.seen {
		return nil
	}
	s := &ReadabilitySignals{Pages: b.total, Unreadable: b.unreadable, ByOrganisation: make([]OrganisationReadability, 0, len(b.byOrg))}
	for org, g := range b.byOrg {
		s.ByOrganisation = append(s.ByOrganisation, OrganisationReadability{
			Organisation: org, Pages: g.pages, FleschKincaid: stats(slices.Clone(g.fk)), SMOG: stats(slices.Clone(g.smog)),
		})
	}
	slices.SortFunc(s.ByOrganisation, func(x, y OrganisationReadability) int { return cmp.Compare(x.Organisation, y.Organisation) })
	s.List = slices.Clone(b.list)
	slices.SortStableFunc(s.List, func(x, y PageReadability) int {
		return cmp.Or(cmp.Compare(y.FleschKincaidGrade, x.FleschKincaidGrade), cmp.Compare(x.URL, y.URL))
	})
	s.List = s.List[:min(len(s.List), limit)]
	if s.List == nil {
		s.List = []PageReadability{}
	}
	return s
}
