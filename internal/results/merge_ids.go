package results

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
)

// Page numbers across shards. CWAC numbers the pages of a run from 1
// (page_id; audit_id is "<page_id>_<viewport>", and a screenshot is
// screenshots/<audit_id>.png), so every shard's pages start again at 1.
// MergeShards moves each shard's numbers past the shards' before it: shard
// i's offset is the sum of the highest page_id of each earlier shard, the
// same in every CSV of the shard, so the rows of one page still join
// across CSVs (and with its screenshot). Only those cells change: each
// row's other bytes are copied as they are. The shards' screenshots are
// linked (or copied) into the merged directory's screenshots/ under the
// new names, and ShardsFile lists each shard's directory, offset, logs and
// screenshots, so that CWAC's logs stay reachable from the merged result.

// ShardsFile is written by MergeShards into the merged directory.
const ShardsFile = "shards.json"

// ScreenshotsDir is where CWAC's screenshot audit writes its images.
const ScreenshotsDir = "screenshots"

// MergedShard is one shard of a merged result, as ShardsFile lists it.
type MergedShard struct {
	// ResultsDir is the shard's results directory, relative to the scan's
	// directory (the merged directory's parent).
	ResultsDir string `json:"results_dir"`
	// PageIDOffset was added to the shard's page_id (and audit_id) values.
	PageIDOffset int64 `json:"page_id_offset"`
	// HighestPageID is the highest page_id of the shard's CSVs.
	HighestPageID int64 `json:"highest_page_id"`
	// Logs are CWAC's log files in the shard's directory.
	Logs []string `json:"logs"`
	// Screenshots were linked into the merged screenshots/ directory.
	Screenshots int `json:"screenshots"`
}

// Bounds on what MergeShards reads of a shard's directory beside its CSVs.
const (
	maxShardLogs        = 100
	maxShardScreenshots = 1_000_000
)

// idColumns are the columns whose cells name a page: page_id, audit_id,
// and screenshot_audit.csv's screenshot (the image's file name).
var idColumns = []string{"page_id", "audit_id", "screenshot"}

// highestPageID reads the page_id column of every CSV of one shard (the
// files MergeShards joins) and returns the highest whole number in it. A
// file it cannot read to its end counts up to where it could: the merge,
// which checks each file as it joins it, says what is wrong with it.
func highestPageID(ctx context.Context, fsys fs.FS, files []string) (int64, error) {
	var highest int64
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		_ = EachRowFS(fsys, name, func(r *Reader, row Row) error { // errors: see above
			col := r.Column("page_id")
			if col < 0 {
				return errSkipFile
			}
			if n, err := ParseCount(row.Field(col)); err == nil {
				highest = max(highest, n)
			}
			return nil
		})
	}
	return highest, nil
}

var errSkipFile = errors.New("skip file")

// shiftID moves a page number cell by offset: "12" (or "12.0") in
// page_id, "12_small" in audit_id, "12_small.png" in screenshot. A cell
// that is not one is kept as it is.
func shiftID(cell []byte, offset int64) []byte {
	digits := 0
	for digits < len(cell) && cell[digits] >= '0' && cell[digits] <= '9' {
		digits++
	}
	if digits == 0 || digits > 15 {
		return cell
	}
	n, err := strconv.ParseInt(string(cell[:digits]), 10, 64)
	if err != nil {
		return cell
	}
	rest := cell[digits:]
	switch {
	case len(rest) == 0, rest[0] == '_':
	case string(rest) == ".0": // pandas wrote an integer as a float
		rest = nil
	default:
		return cell
	}
	return append(strconv.AppendInt(nil, n+offset, 10), rest...)
}

// copyShiftingIDs copies CSV rows (after the header) from src to dst,
// replacing the cells of the columns in cols by shiftID. It follows the
// quotes to find cells and records (as the reader does, for well-formed
// CSV); every byte but those cells' is copied unchanged.
func copyShiftingIDs(dst io.Writer, src io.Reader, cols map[int]bool, offset int64) error {
	br := bufio.NewReaderSize(src, mergeBufferBytes)
	bw := bufio.NewWriterSize(dst, mergeBufferBytes)
	field, inQuotes := 0, false
	var cell []byte // a target cell being gathered
	capturing := cols[0]
	flushCell := func() error {
		raw := cell
		cr := bytes.HasSuffix(raw, []byte{'\r'})
		if cr {
			raw = raw[:len(raw)-1]
		}
		out := raw
		if len(raw) < 2 || raw[0] != '"' {
			out = shiftID(raw, offset)
		} else if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '"') < 0 {
			out = append(append([]byte{'"'}, shiftID(inner, offset)...), '"')
		}
		if _, err := bw.Write(out); err != nil {
			return err
		}
		if cr {
			return bw.WriteByte('\r')
		}
		return nil
	}
	for {
		c, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			if capturing && len(cell) > 0 {
				if err := flushCell(); err != nil {
					return err
				}
			}
			return bw.Flush()
		}
		if err != nil {
			return err
		}
		end := !inQuotes && (c == ',' || c == '\n')
		if c == '"' {
			inQuotes = !inQuotes
		}
		if capturing && !end {
			if len(cell) >= MaxRecordBytes {
				return fmt.Errorf("%w: a cell over %d bytes", ErrTooLarge, MaxRecordBytes)
			}
			cell = append(cell, c)
			continue
		}
		if capturing {
			if err := flushCell(); err != nil {
				return err
			}
			cell = cell[:0]
		}
		if err := bw.WriteByte(c); err != nil {
			return err
		}
		if end {
			if c == ',' {
				field++
			} else {
				field = 0
			}
			capturing = cols[field]
		}
	}
}

// idColumnsOf are the indexes of header's page-naming columns.
func idColumnsOf(header []string) map[int]bool {
	cols := map[int]bool{}
	for i, h := range header {
		for _, c := range idColumns {
			if h == c {
				cols[i] = true
			}
		}
	}
	return cols
}

// shardExtras links each shard's screenshots into dst's screenshots/ under
// their shifted names and lists the shard's logs; it returns ShardsFile's
// entries.
func (m *merger) shardExtras(highest []int64) ([]MergedShard, error) {
	out := make([]MergedShard, 0, len(m.srcs))
	made := false
	for i, src := range m.srcs {
		ms := MergedShard{ResultsDir: m.shards[i], PageIDOffset: m.offsets[i], HighestPageID: highest[i], Logs: []string{}}
		entries, err := fs.ReadDir(src.FS(), ".")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.shards[i], err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".log") && len(ms.Logs) < maxShardLogs {
				ms.Logs = append(ms.Logs, e.Name())
			}
		}
		shots, err := fs.ReadDir(src.FS(), ScreenshotsDir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", path.Join(m.shards[i], ScreenshotsDir), err)
		}
		for _, e := range shots {
			if err := m.ctx.Err(); err != nil {
				return nil, err
			}
			name := e.Name()
			if !e.Type().IsRegular() || !strings.HasSuffix(name, ".png") || ms.Screenshots >= maxShardScreenshots {
				continue // a link or a directory a scan pod put there is not followed
			}
			if !made {
				if err := m.out.Mkdir(ScreenshotsDir, 0o755); err != nil {
					return nil, fmt.Errorf("creating the merged screenshots: %w", err)
				}
				made = true
			}
			to := path.Join(ScreenshotsDir, string(shiftID([]byte(name), m.offsets[i])))
			if err := m.linkOrCopy(path.Join(m.shards[i], ScreenshotsDir, name), src, path.Join(ScreenshotsDir, name), to); err != nil {
				return nil, err
			}
			ms.Screenshots++
		}
		out = append(out, ms)
	}
	return out, nil
}

// linkOrCopy makes dst's file to a hard link to the shard's file from
// (rel, relative to the scan's directory), or a copy where the file system
// cannot link.
func (m *merger) linkOrCopy(rel string, src *os.Root, from, to string) error {
	if m.root != nil {
		if err := m.root.Link(rel, path.Join(m.dst, to)); err == nil {
			return nil
		}
	}
	in, err := src.Open(from)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	defer func() { _ = in.Close() }() // read only
	f, err := m.out.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("copying %s: %w", rel, err)
	}
	if _, err := io.CopyBuffer(f, ctxReader{m.ctx, in}, m.buf); err != nil {
		_ = f.Close() // the copy's error says what went wrong
		return fmt.Errorf("copying %s: %w", rel, err)
	}
	return f.Close()
}

// writeShardsFile writes ShardsFile into the merged directory.
func (m *merger) writeShardsFile(shards []MergedShard) error {
	data, err := json.MarshalIndent(struct {
		Shards []MergedShard `json:"shards"`
	}{shards}, "", "  ")
	if err != nil {
		return err
	}
	return m.out.WriteFile(ShardsFile, append(data, '\n'), 0o644)
}
