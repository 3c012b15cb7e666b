package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// mutant is one mutation gremlins made, its file relative to the module.
type mutant struct {
	file    string
	line    int
	column  int
	mutator string
	status  string
}

func (m mutant) String() string {
	return fmt.Sprintf("%s:%d:%d %s", m.file, m.line, m.column, m.mutator)
}

// gremlins' statuses, as its JSON report spells them.
const (
	statusKilled     = "KILLED"
	statusLived      = "LIVED"
	statusTimedOut   = "TIMED OUT"
	statusNotCovered = "NOT COVERED"
	statusNotViable  = "NOT VIABLE"
)

type counts struct{ killed, timedOut, lived, notCovered, notViable int }

// total is every mutant gremlins made that compiles.
func (c counts) total() int { return c.killed + c.timedOut + c.lived + c.notCovered }

// efficacy is the share of covered mutants the tests noticed, equivalent
// mutants left out. A mutant that made the tests run out of time (an
// endless loop) was noticed too.
func (c counts) efficacy(equivalent int) float64 {
	noticed := c.killed + c.timedOut
	denominator := noticed + c.lived - equivalent
	if denominator <= 0 {
		return 100
	}
	return 100 * float64(noticed) / float64(denominator)
}

type packageResult struct {
	dir        string // internal/gate
	coverage   float64
	seconds    int
	mutants    []mutant
	counts     counts
	equivalent int
	// failure is why the results could not be read (gremlins or go test failed).
	failure string
	// fingerprint is hack/mutation fingerprint's, taken before the run; a
	// package that meets the targets is recorded with it in verified.txt.
	fingerprint string
}

var coverageLine = regexp.MustCompile(`coverage: ([0-9.]+)% of statements`)

// gremlinsReport is the part of gremlins' JSON report read here.
type gremlinsReport struct {
	Files []struct {
		FileName  string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
}

// readPackage reads one package's folder of results; a missing or broken
// report is a failed package, not an error of the whole run.
func readPackage(dir string) (*packageResult, error) {
	name, err := os.ReadFile(filepath.Join(dir, "pkg.txt"))
	if err != nil {
		return nil, err
	}
	p := &packageResult{dir: strings.TrimSpace(string(name))}
	if b, err := os.ReadFile(filepath.Join(dir, "fingerprint.txt")); err == nil {
		p.fingerprint = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile(filepath.Join(dir, "seconds.txt")); err == nil {
		p.seconds, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	cov, err := os.ReadFile(filepath.Join(dir, "coverage.txt"))
	m := coverageLine.FindSubmatch(cov)
	if err != nil || m == nil {
		p.failure = "go test -cover printed no coverage (see its output above)"
		return p, nil
	}
	p.coverage, _ = strconv.ParseFloat(string(m[1]), 64)
	b, err := os.ReadFile(filepath.Join(dir, "gremlins.json"))
	if err != nil {
		p.failure = "gremlins wrote no report (see its output above)"
		return p, nil
	}
	var r gremlinsReport
	if err := json.Unmarshal(b, &r); err != nil {
		p.failure = fmt.Sprintf("gremlins' report is not JSON: %v", err)
		return p, nil
	}
	for _, f := range r.Files {
		for _, x := range f.Mutations {
			mu := mutant{file: path.Join(p.dir, f.FileName), line: x.Line, column: x.Column, mutator: x.Type, status: x.Status}
			p.mutants = append(p.mutants, mu)
			p.counts.add(mu.status)
		}
	}
	sort.Slice(p.mutants, func(i, j int) bool {
		a, b := p.mutants[i], p.mutants[j]
		if a.file != b.file {
			return a.file < b.file
		}
		if a.line != b.line {
			return a.line < b.line
		}
		if a.column != b.column {
			return a.column < b.column
		}
		return a.mutator < b.mutator
	})
	return p, nil
}

func (c *counts) add(status string) {
	switch status {
	case statusKilled:
		c.killed++
	case statusTimedOut:
		c.timedOut++
	case statusLived:
		c.lived++
	case statusNotCovered:
		c.notCovered++
	case statusNotViable:
		c.notViable++
	}
}

// verdict says whether the package meets the targets.
func (p *packageResult) verdict(minEfficacy, minCoverage float64, stale int, enforced bool) (string, bool) {
	var problems []string
	if p.failure != "" {
		problems = append(problems, p.failure)
	} else {
		if e := p.counts.efficacy(p.equivalent); e < minEfficacy {
			problems = append(problems, fmt.Sprintf("efficacy %.1f%% < %.0f%%", e, minEfficacy))
		}
		if p.coverage < minCoverage {
			problems = append(problems, fmt.Sprintf("coverage %.1f%% < %.0f%%", p.coverage, minCoverage))
		}
		if stale > 0 {
			problems = append(problems, fmt.Sprintf("%d stale equivalent(s)", stale))
		}
	}
	switch {
	case len(problems) == 0:
		return "ok", true
	case !enforced:
		return "reported, not enforced: " + strings.Join(problems, ", "), true
	default:
		return "FAIL: " + strings.Join(problems, ", "), false
	}
}

// findings lists the package's surviving mutants that are not equivalent,
// the equivalents whose line moved, and the stale equivalents.
func (p *packageResult) findings(matches map[int]entry, stale []staleEntry, srcDir string) []string {
	var out []string
	for i, m := range p.mutants {
		if m.status != statusLived {
			continue
		}
		if e, ok := matches[i]; ok {
			if e.line != m.line {
				out = append(out, fmt.Sprintf("  moved     %s (listed at line %d; update %s)", m, e.line, e.where()))
			}
			continue
		}
		out = append(out, fmt.Sprintf("  survived  %s  %s", m, strings.TrimSpace(sourceLine(srcDir, m.file, m.line))))
	}
	for _, s := range stale {
		out = append(out, fmt.Sprintf("  stale     %s %s: %s", s.entry.where(), s.entry.key(), s.why))
	}
	if len(out) > 0 {
		out = append([]string{p.dir + ":"}, out...)
	}
	return out
}
