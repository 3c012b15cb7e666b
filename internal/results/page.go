package results

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// PageRequest asks for one page of the rows of some CSVs that pass a filter.
type PageRequest struct {
	Files  []string // in the order their rows are numbered
	Filter RowFilter
	Offset int64 // matching rows to skip
	Limit  int64 // most rows to hand to Keep
	// Index, when it covers every file unchanged, gives the total unread
	// and lets the read start near Offset; nil reads from the start.
	Index *RowIndex
	// Keep receives each row of the page; false stops the read (the
	// caller's answer is full).
	Keep func(file string, r *Reader, row Row) bool
}

// PageResult says how many rows matched.
type PageResult struct {
	// Total is the number of matching rows: exact when Exact, otherwise a
	// lower bound (the read stopped once it knew there were more).
	Total int64
	Exact bool
	// Indexed is true when the row index answered.
	Indexed bool
}

var errPageDone = errors.New("page complete")

// ReadPage reads one page. With a usable index it reads at most one
// checkpoint stretch before the page and nothing after it; without one it
// reads up to the page's end and then at most CountAheadRows more to count
// the rest, reporting the total as a lower bound when rows remain unread.
func ReadPage(ctx context.Context, fsys fs.FS, req PageRequest) (PageResult, error) {
	if entries, ok := indexedFiles(fsys, req.Files, req.Index); ok {
		return readIndexedPage(ctx, fsys, req, entries)
	}
	return readPageFromStart(ctx, fsys, req)
}

// indexedFiles returns the index entries of every file, when each has one
// and is still the size it was when indexed.
func indexedFiles(fsys fs.FS, files []string, x *RowIndex) ([]*FileIndex, bool) {
	if x == nil {
		return nil, false
	}
	entries := make([]*FileIndex, len(files))
	for i, name := range files {
		e := x.Lookup(name)
		if e == nil {
			return nil, false
		}
		info, err := fs.Stat(fsys, name)
		if err != nil || info.Size() != e.Size {
			return nil, false
		}
		entries[i] = e
	}
	return entries, true
}

func readIndexedPage(ctx context.Context, fsys fs.FS, req PageRequest, entries []*FileIndex) (PageResult, error) {
	res := PageResult{Exact: true, Indexed: true}
	m := &matcher{filter: req.Filter}
	for _, e := range entries {
		res.Total += req.Filter.Count(&e.Counts)
	}
	skip, kept := req.Offset, int64(0)
	for i, name := range req.Files {
		matching := req.Filter.Count(&entries[i].Counts)
		if skip >= matching {
			skip -= matching // the whole file lies before the page: not read
			continue
		}
		start := startingCheckpoint(entries[i], req.Filter, skip)
		err := eachRowFrom(ctx, fsys, name, start, func(r *Reader, row Row) error {
			if !m.matches(r, row) {
				return nil
			}
			if skip > 0 {
				skip--
				return nil
			}
			if kept >= req.Limit || !req.Keep(name, r, row) {
				return errPageDone
			}
			kept++
			return nil
		}, req.Filter, &skip)
		if errors.Is(err, errPageDone) || err == nil && kept >= req.Limit {
			return res, nil
		}
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// startingCheckpoint is the last checkpoint with no more than skip
// matching rows before it (nil: the file's first row).
func startingCheckpoint(e *FileIndex, f RowFilter, skip int64) *Checkpoint {
	var best *Checkpoint
	for k := range e.Checkpoints {
		if f.Count(&e.Checkpoints[k].Before) > skip {
			break
		}
		best = &e.Checkpoints[k]
	}
	return best
}

// eachRowFrom streams a file's rows from a checkpoint (nil: from the first
// row), taking the matching rows before the checkpoint off *skip.
func eachRowFrom(ctx context.Context, fsys fs.FS, name string, cp *Checkpoint, fn func(*Reader, Row) error, filter RowFilter, skip *int64) error {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only: closing loses nothing
	r, err := NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if cp != nil && cp.Offset > r.HeaderEnd() { // an offset inside the header is ignored: read from the start
		if err := r.SeekRow(cp.Offset); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		*skip -= filter.Count(&cp.Before)
	}
	return eachRow(ctx, name, r, fn)
}

func eachRow(ctx context.Context, name string, r *Reader, fn func(*Reader, Row) error) error {
	for n := 1; ; n++ {
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if n%ctxCheckRows == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := fn(r, row); err != nil {
			return err
		}
	}
}

// CountAheadRows is how many rows a read without an index goes on past its
// page to count the rest: a small results directory gets its exact total,
// a large one costs a few milliseconds more, never a full read.
const CountAheadRows = 10000

func readPageFromStart(ctx context.Context, fsys fs.FS, req PageRequest) (PageResult, error) {
	var res PageResult
	var kept, ahead int64
	pageDone := false
	m := &matcher{filter: req.Filter}
	for _, name := range req.Files {
		f, err := fsys.Open(name)
		if err != nil {
			return res, err
		}
		err = func() error {
			defer func() { _ = f.Close() }() // read only: closing loses nothing
			r, err := NewReader(f)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			return eachRow(ctx, name, r, func(r *Reader, row Row) error {
				if pageDone {
					if ahead++; ahead > CountAheadRows {
						return errPageDone
					}
				}
				if !m.matches(r, row) {
					return nil
				}
				res.Total++
				if pageDone || res.Total <= req.Offset {
					return nil
				}
				if kept >= req.Limit || !req.Keep(name, r, row) {
					pageDone = true // this row is past the page: count on a little
					return nil
				}
				kept++
				return nil
			})
		}()
		if errors.Is(err, errPageDone) {
			return res, nil
		}
		if err != nil {
			return res, err
		}
	}
	res.Exact = true
	return res, nil
}
