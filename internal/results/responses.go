package results

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Broken responses met while crawling, from unexpected_response_codes.csv
// (base_url, parent_url, url, status_code): CWAC writes a row for each link
// whose response was not 200, 202, 301, 302, 307 or 308, and does not
// audit that page. The file has no organisation column: the base URL is
// matched to its organisation through audit_log.csv and pages_scanned.csv
// (by the base URL, else by its host), in whatever order they are read.

// BrokenResponse is one response CWAC refused while crawling.
type BrokenResponse struct {
	Organisation string `json:"organisation"`
	BaseURL      string `json:"base_url"`
	URL          string `json:"url"`
	// Status is the HTTP status code as CWAC wrote it.
	Status string `json:"status"`
	// LinkedFrom is the page the link was found on (CWAC's parent_url).
	LinkedFrom string `json:"linked_from"`
}

// OrganisationResponses are one organisation's broken responses.
type OrganisationResponses struct {
	Organisation string           `json:"organisation"`
	Responses    int64            `json:"responses"`
	ByStatus     map[string]int64 `json:"by_status"`
}

// ResponseSignals are a scan's broken responses: totals, per organisation
// and listed in the order CWAC met them.
type ResponseSignals struct {
	Responses      int64                   `json:"responses"`
	ByStatus       map[string]int64        `json:"by_status"`
	ByOrganisation []OrganisationResponses `json:"by_organisation"`
	List           []BrokenResponse        `json:"list"`
}

// unknownOrganisation names the organisation of a base URL no other CSV lists.
const unknownOrganisation = "(unknown organisation)"

type responseRow struct {
	BrokenResponse
	baseKey string // the base URL as written, to find its organisation
}

type responseBuilder struct {
	orgs   *orgNames
	seen   bool
	sites  map[string]string // base URL → organisation
	hosts  map[string]string // host → organisation, when the base URL differs
	counts map[string]map[string]int64
	list   []responseRow
	total  int64
	col    struct{ org, baseURL, url, parent, status int }
}

func newResponseBuilder(orgs *orgNames) *responseBuilder {
	return &responseBuilder{orgs: orgs, sites: map[string]string{}, hosts: map[string]string{}, counts: map[string]map[string]int64{}}
}

// beginSites reads the organisation of each base URL of audit_log.csv or pages_scanned.csv.
func (b *responseBuilder) beginSites(r *Reader) func(Row) {
	org, base := r.Column("organisation"), r.Column("base_url")
	return func(row Row) {
		u := cellHead(row, base, maxSignalURLBytes)
		if _, ok := b.sites[u]; ok || len(b.sites) >= MaxSummaryBaseURLs {
			return
		}
		name := b.orgs.name(cellHead(row, org, maxRuleIDBytes))
		b.sites[u] = name
		if h := siteHost(u); h != "" {
			if _, ok := b.hosts[h]; !ok {
				b.hosts[h] = name
			}
		}
	}
}

func (b *responseBuilder) begin(r *Reader) func(Row) {
	b.seen = true
	b.col.baseURL, b.col.url, b.col.parent, b.col.status = r.Column("base_url"), r.Column("url"), r.Column("parent_url"), r.Column("status_code")
	return b.row
}

func (b *responseBuilder) row(row Row) {
	b.total++
	base := cellHead(row, b.col.baseURL, maxSignalURLBytes)
	status := statusText(cellHead(row, b.col.status, 64))
	// Counted by base URL now and by organisation at the end, when every
	// base URL's organisation is known.
	byStatus := b.counts[base]
	if byStatus == nil {
		if len(b.counts) >= MaxSummaryBaseURLs {
			base = OtherKey
			byStatus = b.counts[base]
		}
		if byStatus == nil {
			byStatus = map[string]int64{}
			b.counts[base] = byStatus
		}
	}
	byStatus[countKey(byStatus, status)]++
	if len(b.list) < MaxSignalItems {
		b.list = append(b.list, responseRow{baseKey: base, BrokenResponse: BrokenResponse{
			BaseURL: base, URL: cellHead(row, b.col.url, maxSignalURLBytes),
			Status: status, LinkedFrom: cellHead(row, b.col.parent, maxSignalURLBytes),
		}})
	}
}

// statusText is a status code as a short string: a number as written
// ("404", or "404.0" written by pandas as "404"), anything else cut.
func statusText(cell string) string {
	cell = strings.TrimSpace(cell)
	if n, err := ParseCount(cell); err == nil {
		return strconv.FormatInt(n, 10)
	}
	return keep(cell, 32)
}

// organisationOf is the organisation of a base URL.
func (b *responseBuilder) organisationOf(base string) string {
	if org, ok := b.sites[base]; ok {
		return org
	}
	if org, ok := b.hosts[siteHost(base)]; ok && siteHost(base) != "" {
		return org
	}
	return unknownOrganisation
}

func siteHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}

func (b *responseBuilder) result(limit int) *ResponseSignals {
	if !b.seen {
		return nil
	}
	s := &ResponseSignals{Responses: b.total, ByStatus: map[string]int64{}, List: make([]BrokenResponse, 0, min(len(b.list), limit))}
	byOrg := map[string]*OrganisationResponses{}
	for base, counts := range b.counts {
		org := b.organisationOf(base)
		o := byOrg[org]
		if o == nil {
			o = &OrganisationResponses{Organisation: org, ByStatus: map[string]int64{}}
			byOrg[org] = o
		}
		for status, n := range counts {
			o.Responses += n
			o.ByStatus[countKey(o.ByStatus, status)] += n
			s.ByStatus[countKey(s.ByStatus, status)] += n
		}
	}
	s.ByOrganisation = sortedOrgs(byOrg, func(o *OrganisationResponses) string { return o.Organisation })
	for _, r := range b.list[:min(len(b.list), limit)] {
		r.Organisation = b.organisationOf(r.baseKey)
		s.List = append(s.List, r.BrokenResponse)
	}
	// By organisation, then as CWAC met them.
	slices.SortStableFunc(s.List, func(x, y BrokenResponse) int { return cmp.Compare(x.Organisation, y.Organisation) })
	return s
}
