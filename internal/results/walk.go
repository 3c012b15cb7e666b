package results

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// RowVisitor is fed every row of every CSV Walk reads. Several visitors
// share one read of each file (summary, report, leaderboard, row index), so
// a results directory is read once however many things are built from it.
//
// row is valid only during the call (the strings it returns may be kept).
type RowVisitor interface {
	VisitRow(file string, r *Reader, row Row) error
}

// FileVisitor is implemented by a RowVisitor that must also hear of file
// boundaries: a header-only CSV has no rows, but an audit that found
// nothing still counts, and a row index closes each file's entry at its end.
type FileVisitor interface {
	// BeginFile is called once the file's header is read, before its rows.
	BeginFile(file string, r *Reader) error
	// EndFile is called after the file's last row.
	EndFile(file string, r *Reader) error
}

// SkipVisitor is implemented by a RowVisitor that must hear of the CSVs
// Walk leaves out because they are not regular files (a link, a pipe, a
// directory planted among the results): their rows are not read, and
// whatever the visitor records would otherwise be short without a word.
type SkipVisitor interface {
	// SkipFile is called, before any file is read, once for each such
	// CSV, with why: "name is not a regular file (its type)".
	SkipFile(name, why string) error
}

// ctxCheckRows is how often (in rows) Walk looks at its context: often
// enough to stop within milliseconds, rarely enough to cost nothing.
const ctxCheckRows = 4096

// WalkFiles lists the CSVs Walk reads, sorted by name: every regular .csv
// file at the root of fsys but our own leaderboard (an output, rewritten
// from the others) and progress.csv (CWAC's running log, which a stopped scan
// can leave torn mid-row; ProgressOf reads it on its own, forgivingly).
func WalkFiles(fsys fs.FS) ([]string, error) {
	files, _, err := resultCSVs(fsys)
	return files, err
}

// skippedCSV is a result CSV that is not a regular file, and why it is left
// out: "name is not a regular file (its type)".
type skippedCSV struct{ name, why string }

// resultCSVs lists, sorted by name, the CSVs of a results directory that
// are results (not leaderboard.csv or progress.csv): the regular files, and
// apart those that are not (a link, a directory, a pipe).
func resultCSVs(fsys fs.FS) (regular []string, other []skippedCSV, err error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, nil, fmt.Errorf("reading results directory: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case !strings.HasSuffix(name, ".csv") || name == LeaderboardFile || name == ProgressFile:
		case e.Type().IsRegular():
			regular = append(regular, name) // fs.ReadDir sorts by name
		default:
			other = append(other, skippedCSV{name, fmt.Sprintf("%s is not a regular file (%s)", name, e.Type())})
		}
	}
	return regular, other, nil
}

// Walk reads each CSV of a results directory (WalkFiles) once, in name
// order, and hands every row to every visitor in turn; a SkipVisitor hears
// first of the CSVs left out as not regular files. Visitors must not
// depend on the order of files. The first error stops the walk and is
// returned naming the file; ctx is honoured between rows.
func Walk(ctx context.Context, fsys fs.FS, visitors ...RowVisitor) error {
	files, other, err := resultCSVs(fsys)
	if err != nil {
		return err
	}
	for _, skip := range other {
		for _, v := range visitors {
			if sv, ok := v.(SkipVisitor); ok {
				if err := sv.SkipFile(skip.name, skip.why); err != nil {
					return err
				}
			}
		}
	}
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := walkFile(ctx, fsys, name, visitors); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
				return err
			}
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

func walkFile(ctx context.Context, fsys fs.FS, name string, visitors []RowVisitor) error {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only: closing loses nothing
	r, err := NewReader(f)
	if err != nil {
		return err
	}
	for _, v := range visitors {
		if fv, ok := v.(FileVisitor); ok {
			if err := fv.BeginFile(name, r); err != nil {
				return err
			}
		}
	}
	for n := 1; ; n++ {
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if n%ctxCheckRows == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		for _, v := range visitors {
			if err := v.VisitRow(name, r, row); err != nil {
				return err
			}
		}
	}
	for _, v := range visitors {
		if fv, ok := v.(FileVisitor); ok {
			if err := fv.EndFile(name, r); err != nil {
				return err
			}
		}
	}
	return nil
}
