package diff

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// pageTable numbers the page URLs of both sides and remembers, per side,
// whether CWAC scanned the page and what titles its rows carried.
type pageTable struct {
	ids  map[string]int32
	info []pageInfo
	// last is the previous lookup: CWAC writes a page's rows together.
	lastRaw string
	lastID  int32
	hasLast bool
}

type pageInfo struct {
	key         string // pageKey of the URL
	scanned     [2]bool
	titled      [2]bool
	title       [2]uint64 // hash of the first page_title seen
	titleVaries [2]bool   // rows of the page carried more than one title
}

// id returns the number of a page URL as CWAC wrote it.
func (p *pageTable) id(raw string) int32 {
	if p.hasLast && raw == p.lastRaw {
		return p.lastID
	}
	key := pageKey(raw)
	id, ok := p.ids[key]
	if !ok {
		id = int32(len(p.info))
		p.ids[key] = id
		p.info = append(p.info, pageInfo{key: key})
	}
	p.lastRaw, p.lastID, p.hasLast = raw, id, true
	return id
}

// pageKey is a page URL in a form two spellings of one page share: scheme
// and host in lower case, the scheme's default port left out, an empty path
// as "/". The base URL a page was found from may be spelt differently
// between scans (with or without the trailing slash, an upper-case host);
// the page is the same.
func pageKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Host)
	switch {
	case u.Scheme == "http" && strings.HasSuffix(host, ":80"):
		host = strings.TrimSuffix(host, ":80")
	case u.Scheme == "https" && strings.HasSuffix(host, ":443"):
		host = strings.TrimSuffix(host, ":443")
	}
	u.Host = host
	if u.Path == "" && u.RawPath == "" {
		u.Path = "/"
	}
	return u.String()
}

// readPages marks the pages each side scanned: audit_log.csv lists them.
// Without it (an interrupted scan) every audit CSV's url column is read.
func (c *comparison) readPages() error {
	for s, fsys := range c.fsys {
		err := results.EachRowFS(fsys, results.AuditLogFile, func(_ *results.Reader, row results.Row) error {
			if err := c.ctx.Err(); err != nil {
				return err
			}
			c.pages.info[c.pages.id(row.Get("url"))].scanned[s] = true
			return nil
		})
		if errors.Is(err, fs.ErrNotExist) {
			err = c.pagesFromAudits(s)
		}
		if err != nil {
			return fmt.Errorf("the %s's %w", sideNames[s], err)
		}
	}
	return nil
}

func (c *comparison) pagesFromAudits(s int) error {
	entries, err := fs.ReadDir(c.fsys[s], ".")
	if err != nil {
		return fmt.Errorf("results directory: %w", err)
	}
	for _, e := range entries {
		if _, ok := results.AuditName(e.Name()); !ok || !e.Type().IsRegular() {
			continue
		}
		err := results.EachRowFS(c.fsys[s], e.Name(), func(_ *results.Reader, row results.Row) error {
			if err := c.ctx.Err(); err != nil {
				return err
			}
			if u := row.Get("url"); u != "" {
				c.pages.info[c.pages.id(u)].scanned[s] = true
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// notePage records a row's page on side s: it was scanned, and its title.
func (c *comparison) notePage(s int, page int32, title string) {
	in := &c.pages.info[page]
	in.scanned[s] = true
	h := ElementHash(title)
	switch {
	case !in.titled[s]:
		in.titled[s], in.title[s] = true, h
	case in.title[s] != h:
		in.titleVaries[s] = true
	}
}

// Interner numbers strings (rules, organisations, impacts), so that
// records hold small ids: the comparison's and the issue history's. Each
// string is kept once, as a copy (not a slice of the row it came from).
// The zero value is ready to use.
type Interner struct {
	ids  map[string]int32
	strs []string
}

// ID returns s's number, adding s when it is new.
func (in *Interner) ID(s string) int32 {
	if id, ok := in.ids[s]; ok {
		return id
	}
	if in.ids == nil {
		in.ids = map[string]int32{}
	}
	id := int32(len(in.strs))
	s = strings.Clone(s)
	in.ids[s] = id
	in.strs = append(in.strs, s)
	return id
}

// Text is the string numbered id.
func (in *Interner) Text(id int32) string { return in.strs[id] }

// viewportCache parses each distinct viewport_size cell once; a scan has a
// handful (heights vary with the page, so a few hundred at most are kept).
type viewportCache struct {
	widths map[string]int
}

const maxCachedViewports = 4096

func (v *viewportCache) width(cell string) (int, error) {
	if w, ok := v.widths[cell]; ok {
		return w, nil
	}
	vp, err := results.ParseViewport(cell)
	if err != nil {
		return 0, err
	}
	if len(v.widths) < maxCachedViewports {
		v.widths[cell] = vp.Width
	}
	return vp.Width, nil
}
