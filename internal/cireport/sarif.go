package cireport

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/plainjson"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/wcag"
	"github.com/a11y-dev/cwac-operator/internal/weblink"
)

// SARIFSchema is the OASIS SARIF 2.1.0 schema's address, written as $schema.
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// ToolName is the driver's name in SARIF and the suite's in JUnit.
const ToolName = "CWAC axe-core"

// MaxRules caps the rules of the run: axe-core has about a hundred.
const MaxRules = 1000

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Kind                string            `json:"kind,omitempty"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	BaselineState       string            `json:"baselineState,omitempty"`
	// Suppressions say a decision covers the result: GitHub code scanning
	// shows such a result dismissed.
	Suppressions []sarifSuppression `json:"suppressions,omitempty"`
	Properties   resultProperties   `json:"properties"`
}

// sarifSuppression is a decision about a result, made outside the code
// ("external"), accepted, with the decision's reason.
type sarifSuppression struct {
	Kind          string                `json:"kind"`
	Status        string                `json:"status"`
	Justification string                `json:"justification"`
	Properties    suppressionProperties `json:"properties"`
}

type suppressionProperties struct {
	Decision  string `json:"decision"`
	Kind      string `json:"decisionKind"`
	DecidedBy string `json:"decidedBy,omitempty"`
}

type resultProperties struct {
	Impact        string `json:"impact,omitempty"`
	ViewportWidth int    `json:"viewportWidth"`
	Organisation  string `json:"organisation,omitempty"`
	PageTitle     string `json:"pageTitle,omitempty"`
	Issues        int64  `json:"issues"`
}

type sarifLocation struct {
	PhysicalLocation physicalLocation  `json:"physicalLocation"`
	LogicalLocations []logicalLocation `json:"logicalLocations,omitempty"`
}

type physicalLocation struct {
	ArtifactLocation artifactLocation `json:"artifactLocation"`
	Region           *region          `json:"region,omitempty"`
}

type artifactLocation struct {
	URI string `json:"uri,omitempty"` // none for a page whose URL is not http(s)
}

// region is where the element is: SARIF needs a text region to have a
// start line, and CWAC does not record where in the page's source the
// element stands, so the region is line 1 and the snippet is the element's
// HTML (the selector is the logical location).
type region struct {
	StartLine int          `json:"startLine"`
	Snippet   sarifMessage `json:"snippet"`
}

type logicalLocation struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name,omitempty"`
	ShortDescription     *sarifMessage  `json:"shortDescription,omitempty"`
	FullDescription      *sarifMessage  `json:"fullDescription,omitempty"`
	HelpURI              string         `json:"helpUri,omitempty"`
	DefaultConfiguration ruleConfig     `json:"defaultConfiguration"`
	Properties           ruleProperties `json:"properties"`
}

type ruleConfig struct {
	Level string `json:"level"`
}

type ruleProperties struct {
	Tags   []string `json:"tags,omitempty"`
	Impact string   `json:"impact,omitempty"`
	WCAG   []string `json:"wcag,omitempty"`
}

// sarifWriter writes one run's results as they are read and keeps its
// rules, the fingerprints' ordinals and the counts.
type sarifWriter struct {
	w        *bufio.Writer
	fsys     fs.FS // the results directory (its diff.json, read again for the fixed issues without a Comparison)
	opts     Options
	failRank int
	base     *baseline

	rules        []sarifRule
	ruleIdx      map[string]int
	written      int
	omitted      int64
	rulesOmitted int64
}

// WriteSARIF writes the axe issues of the results directory fsys as a SARIF
// 2.1.0 log of one run. Results are written as the rows are read; the run's
// rules follow them (a JSON object's members have no order).
func WriteSARIF(ctx context.Context, w io.Writer, fsys fs.FS, opts Options) error {
	opts, err := opts.withKeptDecisions(fsys)
	if err != nil {
		return err
	}
	sw, err := newSARIFWriter(w, fsys, opts)
	if err != nil {
		return err
	}
	err = readIssues(fsys, opts, func(is *issue) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return sw.issue(is)
	})
	if err != nil {
		return err
	}
	return sw.end()
}

// newSARIFWriter checks opts, takes the baseline states from
// opts.Comparison (else reads them from fsys's diff.json) and writes the
// log's start to w.
func newSARIFWriter(w io.Writer, fsys fs.FS, opts Options) (*sarifWriter, error) {
	failRank, err := opts.failRank()
	if err != nil {
		return nil, err
	}
	var base *baseline
	if opts.Comparison != nil {
		base = opts.Comparison.base
	} else if base, err = readBaseline(fsys); err != nil {
		return nil, err
	}
	sw := &sarifWriter{w: bufio.NewWriter(w), fsys: fsys, opts: opts, failRank: failRank, base: base,
		ruleIdx: map[string]int{}}
	head, err := plainjson.Marshal(SARIFSchema)
	if err != nil {
		return nil, err
	}
	_, _ = fmt.Fprintf(sw.w, "{\n\"$schema\": %s,\n\"version\": \"2.1.0\",\n\"runs\": [{\n\"results\": [", head)
	return sw, nil
}

// end writes the baseline's fixed issues (when compared: the comparison's,
// else diff.json's) after the scan's own, then the rest of the run.
func (sw *sarifWriter) end() error {
	if sw.opts.Comparison != nil {
		if err := sw.opts.Comparison.eachFixed(sw.fixed); err != nil {
			return err
		}
	} else if sw.base != nil {
		if err := eachFixed(sw.fsys, sw.fixed); err != nil {
			return err
		}
	}
	return sw.finish()
}

func (sw *sarifWriter) level(impact string) string {
	switch r := results.ImpactRank(impact); {
	case r <= sw.failRank:
		return "error"
	case r <= results.ImpactRank(results.ImpactModerate):
		return "warning"
	default:
		return "note"
	}
}

// rule returns the index of the rule of is, adding it when first met; -1
// once MaxRules are kept.
func (sw *sarifWriter) rule(id, help, description, helpURL, impact string, tags []string) int {
	if i, ok := sw.ruleIdx[id]; ok {
		return i
	}
	if len(sw.rules) >= MaxRules {
		return -1
	}
	r := sarifRule{ID: id, Name: id, HelpURI: absoluteURI(helpURL), DefaultConfiguration: ruleConfig{Level: sw.level(impact)},
		Properties: ruleProperties{Tags: tags, Impact: impact}}
	if help != "" {
		r.ShortDescription = &sarifMessage{Text: help}
	}
	if description != "" {
		r.FullDescription = &sarifMessage{Text: description}
	}
	for _, c := range wcag.Criteria(tags) {
		r.Properties.WCAG = append(r.Properties.WCAG, c.String())
		r.Properties.Tags = append(r.Properties.Tags, "WCAG "+c.Number)
	}
	sw.ruleIdx[id] = len(sw.rules)
	sw.rules = append(sw.rules, r)
	return len(sw.rules) - 1
}

func (sw *sarifWriter) issue(is *issue) error {
	if is.issues <= 0 || is.rule == "" {
		return nil // "No issues found": the page passed every rule
	}
	if sw.written >= sw.opts.maxResults() {
		sw.omitted++
		return nil
	}
	ri := sw.rule(is.rule, is.help, is.description, is.helpURL, is.impact, is.tags)
	if ri < 0 {
		sw.rulesOmitted++
		return nil
	}
	res := sarifResult{
		RuleID: is.rule, RuleIndex: ri, Level: sw.level(is.impact),
		Message:             sarifMessage{Text: message(is.help, is.impact, is.width)},
		Locations:           []sarifLocation{location(is.url, is.html, is.target)},
		PartialFingerprints: map[string]string{FingerprintKey: is.id.String()},
		BaselineState:       sw.base.state(is),
		Properties: resultProperties{Impact: is.impact, ViewportWidth: is.width, Organisation: is.organisation,
			PageTitle: is.title, Issues: is.issues},
	}
	if d := is.decision; d != nil {
		res.Suppressions = []sarifSuppression{{Kind: "external", Status: "accepted", Justification: d.Reason,
			Properties: suppressionProperties{Decision: d.Ref, Kind: string(d.Kind), DecidedBy: d.DecidedBy}}}
	}
	return sw.write(&res)
}

// fixed writes a baseline issue this scan no longer has, as an absent
// result: SARIF's way to say a finding went away.
func (sw *sarifWriter) fixed(row *diff.Row) error {
	if sw.written >= sw.opts.maxResults() {
		sw.omitted++
		return nil
	}
	ri := sw.rule(row.Rule, row.Help, "", row.HelpURL, row.Impact, nil)
	if ri < 0 {
		sw.rulesOmitted++
		return nil
	}
	id, err := diff.ParseIssueID(row.IssueID)
	if err != nil { // diff.json written before rows carried ids: the id the issue had when new
		p := partsOf(row.Organisation, diff.PageKey(row.URL), row.ViewportWidth, diff.AuditRule(axeAudit, row.Rule), row.HTML, row.Target)
		p.Namespace = sw.opts.Namespace
		id = diff.NewIssueID(p, 0)
	}
	res := sarifResult{
		RuleID: row.Rule, RuleIndex: ri, Kind: "pass", Level: "none",
		Message:             sarifMessage{Text: "Fixed since the baseline: " + message(row.Help, row.Impact, row.ViewportWidth)},
		Locations:           []sarifLocation{location(row.URL, row.HTML, row.Target)},
		PartialFingerprints: map[string]string{FingerprintKey: id.String()},
		BaselineState:       stateAbsent,
		Properties: resultProperties{Impact: row.Impact, ViewportWidth: row.ViewportWidth, Organisation: row.Organisation,
			Issues: row.Issues},
	}
	return sw.write(&res)
}

func (sw *sarifWriter) write(res *sarifResult) error {
	data, err := plainjson.Marshal(res)
	if err != nil {
		return err
	}
	if sw.written > 0 {
		_ = sw.w.WriteByte(',')
	}
	_ = sw.w.WriteByte('\n')
	_, _ = sw.w.Write(data)
	sw.written++
	return nil
}

func message(help, impact string, width int) string {
	text := help
	if text == "" {
		text = "axe-core issue"
	}
	if impact != "" {
		text += " (" + impact + ")"
	}
	return fmt.Sprintf("%s at viewport width %d", text, width)
}

func location(pageURL, html, target string) sarifLocation {
	loc := sarifLocation{PhysicalLocation: physicalLocation{ArtifactLocation: artifactLocation{URI: uriReference(pageURL)}}}
	if html != "" {
		loc.PhysicalLocation.Region = &region{StartLine: 1, Snippet: sarifMessage{Text: html}}
	}
	if target != "" {
		loc.LogicalLocations = []logicalLocation{{FullyQualifiedName: target, Kind: "element"}}
	}
	return loc
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Properties  runProperties     `json:"properties"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string       `json:"level"`
	Message sarifMessage `json:"message"`
}

type runProperties struct {
	Scan       string            `json:"scan,omitempty"`
	Baseline   string            `json:"baseline,omitempty"`
	FailAt     string            `json:"failAt"`
	Thresholds map[string]string `json:"thresholds,omitempty"`
}

// informationURI is CWAC's home.
const informationURI = "https://github.com/GOVTNZ/cwac"

// finish closes the results and writes the rest of the run.
func (sw *sarifWriter) finish() error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: ToolName, Version: sw.opts.ToolVersion, InformationURI: informationURI,
			Rules: sw.rules}},
		Invocations: []sarifInvocation{{ExecutionSuccessful: true}},
		Properties:  runProperties{Scan: sw.opts.Scan, Baseline: sw.opts.Baseline, FailAt: impactName(sw.failRank)},
	}
	if run.Tool.Driver.Rules == nil {
		run.Tool.Driver.Rules = []sarifRule{}
	}
	if run.Properties.Baseline == "" && sw.base != nil {
		run.Properties.Baseline = sw.base.name
	}
	if len(sw.opts.Thresholds) > 0 {
		run.Properties.Thresholds = map[string]string{}
		for _, t := range sw.opts.Thresholds {
			run.Properties.Thresholds[t.Name] = t.Value
		}
	}
	var notes []string
	if sw.omitted > 0 {
		notes = append(notes, fmt.Sprintf("%d results left out: a run holds at most %d", sw.omitted, sw.opts.maxResults()))
	}
	if sw.rulesOmitted > 0 {
		notes = append(notes, fmt.Sprintf("%d results left out: their rules passed the cap of %d rules", sw.rulesOmitted, MaxRules))
	}
	if sw.base != nil && sw.base.omitted > 0 {
		notes = append(notes, fmt.Sprintf("%d of diff.json's rows not read for baseline states: at most %d are kept", sw.base.omitted, MaxBaselineKeys))
	}
	for _, n := range notes {
		run.Invocations[0].ToolExecutionNotifications = append(run.Invocations[0].ToolExecutionNotifications,
			sarifNotification{Level: "warning", Message: sarifMessage{Text: n}})
	}
	data, err := plainjson.MarshalIndent(run)
	if err != nil {
		return err
	}
	// The run's other members follow its results, in the same object.
	rest := strings.TrimPrefix(strings.TrimSpace(string(data)), "{")
	if sw.written > 0 {
		_ = sw.w.WriteByte('\n')
	}
	_, _ = sw.w.WriteString("],")
	_, _ = sw.w.WriteString(rest)
	_, _ = sw.w.WriteString("]\n}\n")
	return sw.w.Flush()
}

func impactName(rank int) string {
	return results.Impacts()[rank]
}

// uriReference is a page's URL as SARIF's artifactLocation.uri must be, a
// URI reference: Go's form of it when it parses (spaces and other
// characters a URI cannot hold escaped), else the whole text escaped as one
// path segment, so a validator never meets a bad one; "" (no URI) when it
// is not an http(s) URL (weblink: code scanning makes it a link).
func uriReference(s string) string {
	if s = weblink.HTTP(s); s == "" {
		return ""
	}
	if u, err := url.Parse(s); err == nil {
		return u.String()
	}
	return url.PathEscape(s)
}

// absoluteURI is a help link as SARIF's helpUri must be, an absolute http(s)
// URI (weblink), or "" (no link) when it is not one.
func absoluteURI(s string) string {
	u, err := url.Parse(weblink.HTTP(s))
	if err != nil || !u.IsAbs() {
		return ""
	}
	return u.String()
}
