package cwac

import (
	"regexp"
	"strings"
)

// exceptionLine matches the line a Python traceback ends with:
// "<dotted.ExceptionName>: <message>" (the message may be empty, as
// nltk's LookupError's is: its text follows on the next lines).
var exceptionLine = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*(Error|Exception|Exit|Interrupt|Warning|Failure)(: ?(.*))?$`)

// ansiEscape matches terminal colour codes (nltk prints them).
var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")

// FailureCause picks the line of CWAC's error output that names why it
// failed: the last exception line of the last Python traceback, completed
// with the first line of text after it when the exception's own message is
// empty. Without a traceback it is the last line that is not decoration
// (rules of * or -, stack frame addresses). "" when stderr says nothing.
func FailureCause(stderr string) string {
	lines := strings.Split(ansiEscape.ReplaceAllString(stderr, ""), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimRight(lines[i], " \r\t")
		m := exceptionLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if strings.TrimSpace(m[4]) != "" {
			return line
		}
		name := strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(line, ":")), ":")
		for _, next := range lines[i+1:] {
			if text := meaningful(next); text != "" {
				return name + ": " + text
			}
		}
		return name
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if text := meaningful(lines[i]); text != "" && !strings.HasPrefix(text, "#") {
			return text
		}
	}
	return ""
}

// meaningful is the line's text, or "" for blank lines and decoration.
func meaningful(line string) string {
	text := strings.TrimSpace(line)
	if strings.Trim(text, "*-=~^ ") == "" {
		return ""
	}
	return text
}
