package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// entry is one line of equivalent.txt:
//
//	internal/scanpod/report.go:167:CONDITIONALS_BOUNDARY "if len(s) <= n {" at len(s) == n both branches return s
//
// file:line:MUTATOR, then a Go-quoted snippet of the mutated line, then why
// no test can tell the mutant from the original. The snippet, not the line
// number, identifies the mutant, so an entry survives edits above it; the
// line number picks among several lines holding the same snippet.
type entry struct {
	file    string
	line    int
	mutator string
	snippet string
	reason  string
	// listFile and listLine say where the entry is written.
	listFile string
	listLine int
}

func (e entry) where() string { return fmt.Sprintf("%s:%d", e.listFile, e.listLine) }
func (e entry) key() string   { return fmt.Sprintf("%s:%d:%s %q", e.file, e.line, e.mutator, e.snippet) }

// readEquivalents parses the list; blank lines and lines starting with # are
// comments. Every entry needs a snippet and a reason.
func readEquivalents(name string) ([]entry, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var out []entry
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		e, err := parseEntry(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		e.listFile, e.listLine = name, n
		out = append(out, e)
	}
	return out, sc.Err()
}

func parseEntry(text string) (entry, error) {
	const form = `want file.go:LINE:MUTATOR "snippet of the line" reason`
	pos, rest, found := strings.Cut(text, " ")
	parts := strings.Split(pos, ":")
	if !found || len(parts) != 3 {
		return entry{}, fmt.Errorf("%s", form)
	}
	line, err := strconv.Atoi(parts[1])
	if err != nil || line <= 0 {
		return entry{}, fmt.Errorf("line %q is not a line number: %s", parts[1], form)
	}
	rest = strings.TrimSpace(rest)
	quoted, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return entry{}, fmt.Errorf("no quoted snippet: %s", form)
	}
	snippet, _ := strconv.Unquote(quoted)
	reason := strings.TrimSpace(rest[len(quoted):])
	if strings.TrimSpace(snippet) == "" || reason == "" {
		return entry{}, fmt.Errorf("empty snippet or reason: %s", form)
	}
	return entry{file: filepath.ToSlash(parts[0]), line: line, mutator: parts[2], snippet: snippet, reason: reason}, nil
}

// staleEntry is an entry that accounts for no surviving mutant.
type staleEntry struct {
	entry entry
	why   string
}

// discount matches the entries for this package's files with its surviving
// mutants, each mutant at most once, and sets p.equivalent. It returns the
// matches, by index in p.mutants, and the entries that matched nothing.
func (p *packageResult) discount(entries []entry, srcDir string) (map[int]entry, []staleEntry) {
	matches := map[int]entry{}
	var stale []staleEntry
	if p.failure != "" {
		return matches, nil
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.file, p.dir+"/") || strings.Contains(strings.TrimPrefix(e.file, p.dir+"/"), "/") {
			continue // another package's
		}
		best := -1
		for i, m := range p.mutants {
			if _, taken := matches[i]; taken || m.status != statusLived || !e.fits(m, srcDir) {
				continue
			}
			if best < 0 || abs(m.line-e.line) < abs(p.mutants[best].line-e.line) {
				best = i
			}
		}
		if best >= 0 {
			matches[best] = e
			continue
		}
		why := "no such mutant any more (the line or the mutator changed): remove the entry"
		for _, m := range p.mutants {
			if e.fits(m, srcDir) {
				why = fmt.Sprintf("the mutant at line %d is now %s: the tests can tell it apart, remove the entry", m.line, m.status)
				break
			}
		}
		stale = append(stale, staleEntry{entry: e, why: why})
	}
	p.equivalent = len(matches)
	return matches, stale
}

// fits: same file and mutator, and the mutated line holds the snippet.
func (e entry) fits(m mutant, srcDir string) bool {
	return m.file == e.file && m.mutator == e.mutator && strings.Contains(sourceLine(srcDir, m.file, m.line), e.snippet)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

var sourceCache = map[string][]string{}

// sourceLine is line n (from 1) of file under srcDir, "" when there is none.
func sourceLine(srcDir, file string, n int) string {
	key := filepath.Join(srcDir, file)
	lines, ok := sourceCache[key]
	if !ok {
		b, err := os.ReadFile(key)
		if err == nil {
			lines = strings.Split(string(b), "\n")
		}
		sourceCache[key] = lines
	}
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}
