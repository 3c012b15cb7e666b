package results

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// mergeBufferBytes is the copy buffer MergeShards reuses for every file.
const mergeBufferBytes = 256 << 10

// MergeShards writes one CWAC results directory, dst, from the results
// directories of a sharded scan's shards, so that everything that reads
// CWAC's results reads it as one run over all the shards' sites. Every path
// is relative to root (the scan's directory), and every file is opened
// through it, so a link planted by a scan pod cannot lead a read or a
// write outside it.
//
// Each CWAC CSV of any shard (MergeFiles) becomes the shards' files joined
// in the order of shards: the first file with a header whole, byte for byte
// (its byte-order mark and header included), then each later file's bytes
// after its header line, which must hold the same columns. Rows are copied
// as bytes, never parsed and written again, so quoted cells with line
// breaks, the line endings and every other byte pass untouched. A shard
// without the file, or whose file is empty, adds nothing. progress.csv (one
// run's log), our own leaderboard.csv and every file that is not a CSV
// (logs, screenshots, config.json) stay in the shards.
//
// dst must not exist; it is made, and each file appears in it whole or not
// at all (written under a hidden name, then renamed). On error dst is
// removed. ctx is honoured between reads. It returns the names of the files
// written, sorted.
func MergeShards(ctx context.Context, root *os.Root, dst string, shards []string) ([]string, error) {
	srcs := make([]*os.Root, 0, len(shards))
	defer func() {
		for _, r := range srcs {
			_ = r.Close() // read only
		}
	}()
	var names []string
	highest := make([]int64, 0, len(shards))
	for _, dir := range shards {
		r, err := root.OpenRoot(dir)
		if err != nil {
			return nil, fmt.Errorf("opening shard results %s: %w", dir, err)
		}
		srcs = append(srcs, r)
		files, err := MergeFiles(r.FS())
		if err != nil {
			return nil, fmt.Errorf("shard results %s: %w", dir, err)
		}
		names = append(names, files...)
		top, err := highestPageID(ctx, r.FS(), files)
		if err != nil {
			return nil, fmt.Errorf("shard results %s: %w", dir, err)
		}
		highest = append(highest, top)
	}
	// Each shard's page numbers go past the earlier shards' (merge_ids.go).
	offsets := make([]int64, len(shards))
	for i := 1; i < len(shards); i++ {
		offsets[i] = offsets[i-1] + highest[i-1]
	}
	slices.Sort(names)
	names = slices.Compact(names)

	if err := root.Mkdir(dst, 0o755); err != nil {
		return nil, fmt.Errorf("creating the merged results directory: %w", err)
	}
	out, err := root.OpenRoot(dst)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("opening the merged results directory: %w", err), root.RemoveAll(dst))
	}
	m := merger{ctx: ctx, root: root, dst: dst, shards: shards, srcs: srcs, out: out, buf: make([]byte, mergeBufferBytes), offsets: offsets}
	for _, name := range names {
		if err := m.mergeFile(name); err != nil {
			_ = out.Close() // the directory is about to go
			return nil, errors.Join(err, root.RemoveAll(dst))
		}
	}
	extras, err := m.shardExtras(highest)
	if err == nil {
		err = m.writeShardsFile(extras)
	}
	if err != nil {
		_ = out.Close() // the directory is about to go
		return nil, errors.Join(err, root.RemoveAll(dst))
	}
	if err := out.Close(); err != nil {
		return nil, err
	}
	return names, nil
}

// MergeFiles lists the CSVs MergeShards joins in one shard's results
// directory, sorted: those Walk reads (a CWAC results directory's CSVs but
// progress.csv and our leaderboard.csv). A CSV that is not a regular file
// (a link, a directory, a pipe) is an error: a scan pod may have put it
// there, and a merge that skipped it would silently lose rows.
func MergeFiles(fsys fs.FS) ([]string, error) {
	files, other, err := resultCSVs(fsys)
	if err == nil && len(other) > 0 {
		err = errors.New(other[0].why)
	}
	return files, err
}

// merger joins one file at a time from the shards into out.
type merger struct {
	ctx    context.Context
	root   *os.Root // the scan's directory
	dst    string   // the merged directory, relative to root
	shards []string
	srcs   []*os.Root
	out    *os.Root
	buf    []byte
	// offsets are added to each shard's page numbers (merge_ids.go).
	offsets []int64
}

// firstPart is what the first shard's file with a header set for the others.
type firstPart struct {
	label   string   // shard/file, for errors
	header  []string // its columns, which every later file must repeat
	lineEnd string   // its header's line ending, put between parts when one lacks a final one
}

func (m *merger) mergeFile(name string) (err error) {
	tmp := "." + name + ".merging"
	f, err := m.out.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("creating merged %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()         // the error already says what went wrong
			_ = m.out.Remove(tmp) // likewise
		}
	}()
	w := &partWriter{w: f}
	var first *firstPart
	for i, src := range m.srcs {
		label := path.Join(m.shards[i], name)
		if first, err = m.appendPart(w, i, src, name, label, first); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing merged %s: %w", name, err)
	}
	if err := m.out.Rename(tmp, name); err != nil {
		return fmt.Errorf("writing merged %s: %w", name, err)
	}
	return nil
}

// appendPart appends one shard's file (label names it in errors) and
// returns the first part with a header, which it is when first is nil.
func (m *merger) appendPart(w *partWriter, shard int, src *os.Root, name, label string, first *firstPart) (*firstPart, error) {
	if err := m.ctx.Err(); err != nil {
		return first, err
	}
	if info, err := src.Lstat(name); errors.Is(err, fs.ErrNotExist) {
		return first, nil // this shard has no such file
	} else if err != nil {
		return first, fmt.Errorf("%s: %w", label, err)
	} else if !info.Mode().IsRegular() {
		return first, fmt.Errorf("%s is not a regular file (%s)", label, info.Mode().Type())
	}
	f, err := src.Open(name)
	if err != nil {
		return first, fmt.Errorf("%s: %w", label, err)
	}
	defer func() { _ = f.Close() }() // read only
	info, err := f.Stat()
	if err != nil {
		return first, fmt.Errorf("%s: %w", label, err)
	}
	if !info.Mode().IsRegular() { // replaced since the Lstat
		return first, fmt.Errorf("%s is not a regular file (%s)", label, info.Mode().Type())
	}
	if empty, err := hasNoHeader(f, info.Size()); err != nil || empty {
		return first, wrapLabel(label, err)
	}
	r, err := NewReader(f)
	if err != nil {
		return first, fmt.Errorf("%s: %w", label, err)
	}
	from := int64(0) // the first part is copied whole
	if first == nil {
		lineEnd, err := headerLineEnd(f, r.HeaderEnd())
		if err != nil {
			return first, fmt.Errorf("%s: %w", label, err)
		}
		first = &firstPart{label: label, header: slices.Clone(r.Header()), lineEnd: lineEnd}
	} else {
		if !slices.Equal(r.Header(), first.header) {
			return first, fmt.Errorf("%s has the columns %q, but %s has %q: the shards' CSVs cannot be joined",
				label, strings.Join(r.Header(), ","), first.label, strings.Join(first.header, ","))
		}
		from = r.HeaderEnd()
		if from == info.Size() {
			return first, nil // a header alone: no rows to add
		}
		if w.n > 0 && w.last != '\n' {
			// The part before lacks a final line ending: end its last row
			// so that this part's first row does not join it.
			end := first.lineEnd
			if w.last == '\r' {
				end = "\n"
			}
			if _, err := io.WriteString(w, end); err != nil {
				return first, fmt.Errorf("writing merged %s: %w", name, err)
			}
		}
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return first, fmt.Errorf("%s: %w", label, err)
	}
	w.quotes = 0
	if cols := idColumnsOf(r.Header()); m.offsets[shard] > 0 && len(cols) > 0 {
		if first.label == label {
			// The first part's header is copied as it is, then its rows.
			if _, err := io.CopyN(w, f, r.HeaderEnd()); err != nil {
				return first, fmt.Errorf("copying %s: %w", label, err)
			}
		}
		if err := copyShiftingIDs(w, ctxReader{m.ctx, f}, cols, m.offsets[shard]); err != nil {
			if ctxErr := m.ctx.Err(); ctxErr != nil {
				return first, ctxErr
			}
			return first, fmt.Errorf("copying %s: %w", label, err)
		}
	} else if _, err := io.CopyBuffer(w, ctxReader{m.ctx, f}, m.buf); err != nil {
		if ctxErr := m.ctx.Err(); ctxErr != nil {
			return first, ctxErr
		}
		return first, fmt.Errorf("copying %s: %w", label, err)
	}
	if w.quotes%2 != 0 {
		// Every well-formed quoted cell has an even number of quotes, so
		// the file stops inside one (cut short): the next shard's rows
		// would be read as part of that cell.
		return first, fmt.Errorf("%s ends inside a quoted cell (the file is cut short)", label)
	}
	return first, nil
}

func wrapLabel(label string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", label, err)
}

// hasNoHeader reports whether a file is empty or only the byte-order mark:
// nothing to join. f is left at its start.
func hasNoHeader(f *os.File, size int64) (bool, error) {
	if size == 0 {
		return true, nil
	}
	if size != int64(len(bom)) {
		return false, nil
	}
	head := make([]byte, len(bom))
	if _, err := f.ReadAt(head, 0); err != nil {
		return false, err
	}
	return bytes.Equal(head, bom), nil
}

// headerLineEnd is the line ending of the header that ends at offset end:
// "\n" or "\r\n" (CWAC's), and "\r\n" when the file ends with the header.
func headerLineEnd(f *os.File, end int64) (string, error) {
	if end < 2 {
		return "\r\n", nil
	}
	tail := make([]byte, 2)
	if _, err := f.ReadAt(tail, end-2); err != nil {
		return "", err
	}
	if tail[1] == '\n' && tail[0] != '\r' {
		return "\n", nil
	}
	return "\r\n", nil
}

// partWriter writes the merged file, remembering how much it has written,
// its last byte and the quotes in the part being copied.
type partWriter struct {
	w      io.Writer
	n      int64
	last   byte
	quotes int
}

func (p *partWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if n > 0 {
		p.n += int64(n)
		p.last = b[n-1]
		p.quotes += bytes.Count(b[:n], []byte{'"'})
	}
	return n, err
}

// ctxReader stops a copy once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
