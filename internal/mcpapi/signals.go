package mcpapi

import "github.com/a11y-dev/cwac-operator/internal/results"

// SignalsInput are the arguments of the tools that read CWAC's signals
// (cwac_get_templates, cwac_get_page_titles, cwac_get_broken_responses,
// cwac_get_readability).
type SignalsInput struct {
	ScanID       string `json:"scan_id" jsonschema:"the scan's ID, or a results directory listed by cwac_list_scans"`
	Organisation string `json:"organisation,omitempty" jsonschema:"only this organisation (CWAC's organisation name, exactly)"`
	Limit        int    `json:"limit,omitempty" jsonschema:"most items to return (default 100, at most the server's result limit, 1000 by default)"`
	Offset       int    `json:"offset,omitempty" jsonschema:"items to skip first, for paging"`
}

// SignalsPage is how a signals tool's list was paged.
type SignalsPage struct {
	ScanID string `json:"scan_id"`
	// Total is how many items match (the organisation filter), of which
	// Returned are in the answer from Offset.
	Total    int `json:"total"`
	Offset   int `json:"offset"`
	Returned int `json:"returned"`
	// Truncated: fewer items than asked, to keep the answer under the
	// server's cap; continue at offset + returned.
	Truncated bool   `json:"truncated,omitempty"`
	Note      string `json:"note,omitempty"`
}

// TemplatesOutput is cwac_get_templates' answer.
type TemplatesOutput struct {
	SignalsPage
	TemplateIssues int64                           `json:"template_issues" jsonschema:"issues found with the same rule and element on 2 or more pages of a site"`
	Instances      int64                           `json:"instances" jsonschema:"issues those template issues hold, in CWAC's count"`
	ByOrganisation []results.OrganisationTemplates `json:"by_organisation"`
	Issues         []results.TemplateIssue         `json:"issues" jsonschema:"most pages first, then most instances"`
}

// TitleFinding is one page title problem.
type TitleFinding struct {
	// Problem is "duplicate" (a title several pages of one site share)
	// or "missing_or_empty" (a page without a title).
	Problem      string `json:"problem"`
	Organisation string `json:"organisation"`
	BaseURL      string `json:"base_url"`
	// Title is the shared title (duplicates only).
	Title string `json:"title,omitempty"`
	// Pages are how many pages share the title (1 for a missing title).
	Pages int64 `json:"pages"`
	// URLs name the pages: the page without a title, or the first three sharing one.
	URLs []string `json:"urls"`
}

// PageTitlesOutput is cwac_get_page_titles' answer.
type PageTitlesOutput struct {
	SignalsPage
	Pages                   int64                        `json:"pages"`
	MissingOrEmpty          int64                        `json:"missing_or_empty"`
	DuplicateTitles         int64                        `json:"duplicate_titles"`
	PagesWithDuplicateTitle int64                        `json:"pages_with_duplicate_title"`
	ByOrganisation          []results.OrganisationTitles `json:"by_organisation"`
	Findings                []TitleFinding               `json:"findings" jsonschema:"duplicate titles (most pages first), then pages without a title"`
}

// BrokenResponsesOutput is cwac_get_broken_responses' answer.
type BrokenResponsesOutput struct {
	SignalsPage
	Responses      int64                           `json:"responses"`
	ByStatus       map[string]int64                `json:"by_status"`
	ByOrganisation []results.OrganisationResponses `json:"by_organisation"`
	List           []results.BrokenResponse        `json:"list" jsonschema:"by organisation, then in the order CWAC met them"`
}

// ReadabilityOutput is cwac_get_readability's answer.
type ReadabilityOutput struct {
	SignalsPage
	Pages          int64                             `json:"pages" jsonschema:"pages measured"`
	ByOrganisation []results.OrganisationReadability `json:"by_organisation"`
	List           []results.PageReadability         `json:"list" jsonschema:"pages, hardest to read first (Flesch-Kincaid grade)"`
}
