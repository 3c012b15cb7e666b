package realcwac

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing/fstest"
)

// Results is a results directory held in memory for a test to edit: each
// CSV as rows (its header first), every other file as bytes.
type Results struct {
	CSVs  map[string][][]string
	Files map[string][]byte
}

// Load reads the real run into memory.
func Load() (*Results, error) {
	r := &Results{CSVs: map[string][][]string{}, Files: map[string][]byte{}}
	entries, err := os.ReadDir(Dir())
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(Dir(), e.Name()))
		if err != nil {
			return nil, err
		}
		if !strings.HasSuffix(e.Name(), ".csv") {
			r.Files[e.Name()] = b
			continue
		}
		cr := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte(bom))))
		cr.FieldsPerRecord = -1
		rows, err := cr.ReadAll()
		if err != nil {
			return nil, fmt.Errorf("the real %s: %w", e.Name(), err)
		}
		r.CSVs[e.Name()] = rows
	}
	return r, nil
}

// bom starts every CSV CWAC writes.
const bom = "\xef\xbb\xbf"

// Clone copies the directory, so that each scan of a sequence edits its own.
func (r *Results) Clone() *Results {
	c := &Results{CSVs: make(map[string][][]string, len(r.CSVs)), Files: make(map[string][]byte, len(r.Files))}
	for n, rows := range r.CSVs {
		cp := make([][]string, len(rows))
		for i, row := range rows {
			cp[i] = slices.Clone(row)
		}
		c.CSVs[n] = cp
	}
	for n, b := range r.Files {
		c.Files[n] = b
	}
	return c
}

// FS renders the directory as CWAC writes it: each CSV with a byte-order
// mark, quoted as Python's csv module quotes.
func (r *Results) FS() fstest.MapFS {
	m := fstest.MapFS{}
	for n, rows := range r.CSVs {
		var b bytes.Buffer
		b.WriteString(bom)
		w := csv.NewWriter(&b)
		_ = w.WriteAll(rows)
		m[n] = &fstest.MapFile{Data: b.Bytes()}
	}
	for n, b := range r.Files {
		m[n] = &fstest.MapFile{Data: b}
	}
	return m
}
