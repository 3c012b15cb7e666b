package cwacconfig

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// Site is one row of CWAC's base URL CSV.
type Site struct {
	Organisation string
	URL          string
	Sector       string
}

// The original CWAC MCP server's words for a scan with no URL and for a URL
// no scan may name. The errors below start with them word for word, in the
// same case, because the MCP server answers with these errors and clients
// written for the original match them (internal/mcpserver/errortexts.go
// lists every such text).
const (
	TextNoURLs     = "At least one URL is required"
	TextInvalidURL = "Invalid URL: "
)

// DefaultSector is used when a site names none.
const DefaultSector = "unknown"

// BaseURLHeader is the header CWAC requires of base URL CSVs.
var BaseURLHeader = []string{"organisation", "url", "sector"}

// NormalizeSites merges plain URLs and sites into CWAC's rows, filling the
// defaults (organisation = the URL's host, sector = "unknown") and dropping
// repeated URLs (the first wins). Every URL must be absolute http(s) with a host.
func NormalizeSites(urls []string, sites []Site) ([]Site, error) {
	all := make([]Site, 0, len(urls)+len(sites))
	for _, u := range urls {
		all = append(all, Site{URL: u})
	}
	all = append(all, sites...)
	seen := map[string]bool{}
	out := make([]Site, 0, len(all))
	for _, s := range all {
		u, err := ParseBaseURL(s.URL)
		if err != nil {
			return nil, err
		}
		if seen[s.URL] {
			continue
		}
		seen[s.URL] = true
		if strings.TrimSpace(s.Organisation) == "" {
			s.Organisation = u.Hostname()
		}
		if strings.TrimSpace(s.Sector) == "" {
			s.Sector = DefaultSector
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, errors.New(TextNoURLs)
	}
	return out, nil
}

// ParseBaseURL accepts only a URL of the form a scan may name
// (urlpolicy.CheckForm: absolute http(s), a host, no user-info, at most
// urlpolicy.MaxURLLength characters, the CRD's pattern). Its errors start
// with TextInvalidURL and the URL's first maxURLShown bytes, quoted when it
// holds white space, then why.
func ParseBaseURL(raw string) (*url.URL, error) {
	u, d := urlpolicy.CheckForm(raw)
	if d != nil {
		shown := textcap.Head(raw, maxURLShown)
		if strings.ContainsAny(shown, " \t\r\n") {
			shown = strconv.Quote(shown)
		}
		return nil, fmt.Errorf("%s%s: %s", TextInvalidURL, shown, d.Detail)
	}
	return u, nil
}

// maxURLShown bounds the part of a refused URL its error shows, in bytes.
const maxURLShown = 200

// WriteBaseURLCSV renders sites as CWAC's base URL CSV (header
// organisation,url,sector; RFC 4180 quoting for commas, quotes and newlines;
// UTF-8 without a byte-order mark).
func WriteBaseURLCSV(sites []Site) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(BaseURLHeader); err != nil {
		return nil, err
	}
	for _, s := range sites {
		if err := w.Write([]string{s.Organisation, s.URL, s.Sector}); err != nil {
			return nil, err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("writing base URL CSV: %w", err)
	}
	return buf.Bytes(), nil
}

// ReadBaseURLCSV parses a base URL CSV written by WriteBaseURLCSV.
func ReadBaseURLCSV(data []byte) ([]Site, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	r.FieldsPerRecord = 3
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("reading base URL CSV: %w", err)
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != strings.Join(BaseURLHeader, ",") {
		return nil, fmt.Errorf("reading base URL CSV: header must be %s", strings.Join(BaseURLHeader, ","))
	}
	out := make([]Site, 0, len(rows)-1)
	for _, row := range rows[1:] {
		out = append(out, Site{Organisation: row[0], URL: row[1], Sector: row[2]})
	}
	return out, nil
}
