package ingest

import (
	"errors"
	"io"
	"io/fs"
	"regexp"
)

// chromeLogFile is where CWAC's chromedriver writes the browser it started.
const chromeLogFile = "chromedriver.log"

// chromeLogBytes is how much of chromedriver.log is searched: the session's
// capabilities are near its start, and the log can be large.
const chromeLogBytes = 4 << 20

var browserVersion = regexp.MustCompile(`"browserVersion":\s*"([0-9]+(?:\.[0-9]+){0,3})"`)

// chromeVersion reads Chrome's version from chromedriver.log's first
// capabilities ("browserVersion": "156.0.8078.79"); "" when the log or
// the line is missing. Only a file that exists and cannot be read fails.
func chromeVersion(fsys fs.FS) (string, error) {
	// Only a regular file: a link or a pipe planted there is not CWAC's
	// log (and opening a pipe would wait for a writer).
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return "", err
	}
	regular := false
	for _, e := range entries {
		if e.Name() == chromeLogFile {
			regular = e.Type().IsRegular()
		}
	}
	if !regular {
		return "", nil
	}
	f, err := fsys.Open(chromeLogFile)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read only
	b, err := io.ReadAll(io.LimitReader(f, chromeLogBytes))
	if err != nil {
		return "", err
	}
	if m := browserVersion.FindSubmatch(b); m != nil {
		return string(m[1]), nil
	}
	return "", nil
}
