// Package wcag maps axe-core's rule tags to the WCAG 2.2 success criteria
// they test. axe tags a rule with one tag per criterion: "wcag" followed by
// the criterion's number without its dots ("wcag111" is 1.1.1, "wcag1410"
// is 1.4.10, "wcag2411" is 2.4.11). Its other tags (conformance levels such
// as "wcag2aa", "best-practice", "cat.*", "EN-*", "ACT", "section508", …)
// name no criterion. The table is the WCAG 2.2 Recommendation's list of
// success criteria; the package is pure data and lookups.
package wcag

import (
	"sort"
	"strings"
)

// Level is a success criterion's conformance level.
type Level string

// Conformance levels, from least to most demanding.
const (
	LevelA   Level = "A"
	LevelAA  Level = "AA"
	LevelAAA Level = "AAA"
)

// Criterion is one WCAG 2.2 success criterion.
type Criterion struct {
	// Number is the criterion's number, "1.4.3".
	Number string `json:"number"`
	// Name is its short name, "Contrast (Minimum)".
	Name  string `json:"name"`
	Level Level  `json:"level"`
	// Removed marks 4.1.1 Parsing, which WCAG 2.2 lists as obsolete and
	// removed; axe-core versions before 4.9 still tag rules with it.
	Removed bool `json:"removed,omitempty"`
}

// String is "1.4.3 Contrast (Minimum) (AA)".
func (c Criterion) String() string {
	return c.Number + " " + c.Name + " (" + string(c.Level) + ")"
}

// UnderstandingURL is the W3C's "Understanding" page of the criterion. Its
// address is the criterion's name in lower case, words joined by hyphens,
// without punctuation.
func (c Criterion) UnderstandingURL() string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(c.Name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
		case r == ' ' || r == '-':
			hyphen = true
		}
	}
	return "https://www.w3.org/WAI/WCAG22/Understanding/" + b.String() + ".html"
}

// index finds a criterion's place in the table by its number.
var index = map[string]int{}

func init() {
	for i, c := range table {
		index[c.Number] = i
	}
}

// All returns every criterion of WCAG 2.2 in the order of the Recommendation.
func All() []Criterion { return append([]Criterion(nil), table...) }

// Lookup finds a criterion by its number ("1.4.3").
func Lookup(number string) (Criterion, bool) {
	i, ok := index[number]
	if !ok {
		return Criterion{}, false
	}
	return table[i], true
}

// ForTag returns the criterion an axe tag names ("wcag143" → 1.4.3), and
// false for tags that name none.
func ForTag(tag string) (Criterion, bool) {
	digits, ok := strings.CutPrefix(tag, "wcag")
	if !ok || len(digits) < 3 || len(digits) > 4 {
		return Criterion{}, false
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return Criterion{}, false // "wcag2aa", "wcag21aa": conformance levels
		}
	}
	// Principles (1-4) and guidelines (1-5) are one digit; the criterion takes the rest.
	return Lookup(digits[:1] + "." + digits[1:2] + "." + digits[2:])
}

// Criteria returns the criteria that a rule's tags name, each once, in the
// Recommendation's order. Tags naming no criterion are ignored.
func Criteria(tags []string) []Criterion {
	var out []Criterion
	seen := map[string]bool{}
	for _, t := range tags {
		c, ok := ForTag(strings.TrimSpace(t))
		if ok && !seen[c.Number] {
			seen[c.Number] = true
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return index[out[i].Number] < index[out[j].Number] })
	return out
}

// Less orders criteria numbers as the Recommendation does (1.4.9 before
// 1.4.10); unknown numbers sort last, by text.
func Less(a, b string) bool {
	ia, oka := index[a]
	ib, okb := index[b]
	switch {
	case oka && okb:
		return ia < ib
	case oka != okb:
		return oka
	}
	return a < b
}
