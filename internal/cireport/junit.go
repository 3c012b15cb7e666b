package cireport

import (
	"bufio"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/weblink"
)

// MaxExamples caps the issues a failing test case lists in its text.
const MaxExamples = 5

// passName is the test case of a page with no axe issue at all.
const passName = "axe-core: no issues"

// testCase is one page and rule (or a page that passed every rule).
type testCase struct {
	page, rule, help, helpURL string
	worst                     int // the worst impact's rank
	issues                    int64
	widths                    []int
	examples                  []string
	// decided counts the issues a decision covers, in no other figure;
	// decision is the first of them (a case of decided issues alone is
	// skipped with its reason).
	decided  int64
	decision *decision.Decision
}

type caseKey struct{ page, rule string }

// junitBuilder gathers test cases in the order they are first met.
type junitBuilder struct {
	opts     Options
	failRank int
	cases    []*testCase
	index    map[caseKey]int
	omitted  int64
}

// WriteJUnit writes the axe issues of the results directory fsys as JUnit
// XML: one suite, a test case per page and rule, failed when an issue's
// impact is at or above Options.FailAt (see the package doc).
func WriteJUnit(ctx context.Context, w io.Writer, fsys fs.FS, opts Options) error {
	opts, err := opts.withKeptDecisions(fsys)
	if err != nil {
		return err
	}
	failRank, err := opts.failRank()
	if err != nil {
		return err
	}
	b := newJUnitBuilder(opts, failRank)
	if err := readIssues(fsys, opts, func(is *issue) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		b.add(is)
		return nil
	}); err != nil {
		return err
	}
	if opts.Baseline == "" && opts.Comparison != nil {
		opts.Baseline = opts.Comparison.base.name
	} else if opts.Baseline == "" {
		if base, err := readBaseline(fsys); err != nil {
			return err
		} else if base != nil {
			opts.Baseline = base.name
		}
	}
	return b.write(w, opts)
}

func newJUnitBuilder(opts Options, failRank int) *junitBuilder {
	return &junitBuilder{opts: opts, failRank: failRank, index: map[caseKey]int{}}
}

func (b *junitBuilder) add(is *issue) {
	k := caseKey{page: is.url, rule: is.rule}
	if is.issues <= 0 || is.rule == "" {
		k.rule = passName
	}
	i, ok := b.index[k]
	if !ok {
		if len(b.cases) >= b.opts.maxTestCases() {
			b.omitted++
			return
		}
		i = len(b.cases)
		b.index[k] = i
		b.cases = append(b.cases, &testCase{page: k.page, rule: k.rule, help: is.help, helpURL: is.helpURL,
			worst: len(results.Impacts())})
	}
	c := b.cases[i]
	if k.rule == passName {
		return
	}
	if is.decision != nil {
		c.decided += is.issues
		if c.decision == nil {
			c.decision = is.decision
		}
		return
	}
	c.issues += is.issues
	c.worst = min(c.worst, results.ImpactRank(is.impact))
	if !slices.Contains(c.widths, is.width) {
		c.widths = append(c.widths, is.width)
	}
	if len(c.examples) < MaxExamples {
		c.examples = append(c.examples, fmt.Sprintf("%s at width %d (issue %s): %s %s", is.impact, is.width, is.id,
			textcap.Head(is.target, 200), textcap.Head(is.html, 300)))
	}
}

// The JUnit elements written (the common Ant/Jenkins form).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
	SystemErr  string          `xml:"system-err,omitempty"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// junitSkipped marks a case whose issues a decision covers.
type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func (b *junitBuilder) write(w io.Writer, opts Options) error {
	suite := junitSuite{Name: ToolName, Properties: properties(opts, b.failRank)}
	for _, c := range b.cases {
		jc := junitCase{Name: c.rule, Classname: c.page, Time: "0"}
		switch {
		case c.rule == passName:
		case c.issues == 0:
			jc.Skipped = &junitSkipped{Message: skippedText(c)}
			suite.Skipped++
		default:
			jc.SystemOut = caseText(c)
			if c.worst <= b.failRank {
				impact := results.Impacts()[c.worst]
				jc.Failure = &junitFailure{
					Message: fmt.Sprintf("%s (%s): %d issues", c.help, impact, c.issues),
					Type:    impact, Text: jc.SystemOut,
				}
				jc.SystemOut = ""
				suite.Failures++
			}
		}
		suite.Cases = append(suite.Cases, jc)
	}
	suite.Tests = len(suite.Cases)
	if b.omitted > 0 {
		suite.SystemErr = fmt.Sprintf("%d rows of pages and rules left out: a report holds at most %d test cases",
			b.omitted, b.opts.maxTestCases())
	}
	doc := junitSuites{Name: "cwac " + opts.Scan, Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}}
	if opts.Scan == "" {
		doc.Name = "cwac"
	}
	bw := bufio.NewWriter(w)
	_, _ = bw.WriteString(xml.Header)
	enc := xml.NewEncoder(bw)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_ = bw.WriteByte('\n')
	return bw.Flush()
}

// skippedText says which decision covers a case's issues, and why.
func skippedText(c *testCase) string {
	d := c.decision
	by := ""
	if d.DecidedBy != "" {
		by = " by " + d.DecidedBy
	}
	return fmt.Sprintf("%d issues decided %s%s (%s): %s", c.decided, d.Kind, by, d.Ref, d.Reason)
}

func caseText(c *testCase) string {
	var sb strings.Builder
	widths := make([]string, len(c.widths))
	for i, w := range c.widths {
		widths[i] = strconv.Itoa(w)
	}
	fmt.Fprintf(&sb, "%s\n%d issues at viewport widths %s\n", c.help, c.issues, strings.Join(widths, ", "))
	if c.decided > 0 {
		fmt.Fprintf(&sb, "%d more issues decided %s (%s): %s\n", c.decided, c.decision.Kind, c.decision.Ref, c.decision.Reason)
	}
	if u := weblink.HTTP(c.helpURL); u != "" { // CI viewers make it a link
		fmt.Fprintf(&sb, "help: %s\n", u)
	}
	for _, e := range c.examples {
		sb.WriteString(e)
		sb.WriteByte('\n')
	}
	return sb.String()
}

func properties(opts Options, failRank int) []junitProperty {
	ps := []junitProperty{{Name: "cwac.failAt", Value: results.Impacts()[failRank]}}
	if opts.Scan != "" {
		ps = append(ps, junitProperty{Name: "cwac.scan", Value: opts.Scan})
	}
	if opts.Baseline != "" {
		ps = append(ps, junitProperty{Name: "cwac.baseline", Value: opts.Baseline})
	}
	if opts.ToolVersion != "" {
		ps = append(ps, junitProperty{Name: "cwac.version", Value: opts.ToolVersion})
	}
	for _, t := range opts.Thresholds {
		ps = append(ps, junitProperty{Name: "cwac.threshold." + t.Name, Value: t.Value})
	}
	return ps
}
