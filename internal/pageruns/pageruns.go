// Package pageruns keeps what is learnt of each page of a scan read row by
// row (the elements told apart, the issue ids given), to read a page's
// again when its rows come back.
//
// CWAC writes a page's rows together, viewport after viewport, so what is
// learnt of a page comes in runs: the entries added while one page's rows
// came together. A reader that holds only the page being read needs the
// entries of its earlier runs when its rows come back after other pages'.
// A Log keeps the entries, the runs and the index of pages to their runs
// in a Spool (a hidden file beside the results, in the runner, or Memory),
// and holds in memory only the pages of its latest runs and a filter of
// the others: what it holds does not grow with the scan's rows, and
// little with its pages.
package pageruns

import (
	"errors"
	"io"
)

// Spool is where a Log keeps its entries: written in order, read at any
// place.
type Spool interface {
	io.Writer
	io.ReaderAt
}

// Codec writes an entry into Size bytes (Put) and reads it back (Get).
type Codec[T any] struct {
	Size int
	Put  func([]byte, T)
	Get  func([]byte) T
}

// Memory is a Spool in memory, for where no file can be made: it grows in
// chunks, never copying what it holds.
type Memory struct {
	chunks [][]byte
	n      int64
}

// memoryChunk is the size of a Memory's chunks.
const memoryChunk = 64 << 10

// Write appends p.
func (m *Memory) Write(p []byte) (int, error) {
	written := len(p)
	for len(p) > 0 {
		if m.n%memoryChunk == 0 {
			m.chunks = append(m.chunks, make([]byte, memoryChunk))
		}
		c := copy(m.chunks[len(m.chunks)-1][m.n%memoryChunk:], p)
		p = p[c:]
		m.n += int64(c)
	}
	return written, nil
}

// ReadAt reads len(p) bytes at off, or what there is and io.EOF.
func (m *Memory) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("pageruns: a read before the start of the spool")
	}
	read := 0
	for read < len(p) && off < m.n {
		c := copy(p[read:], m.chunks[off/memoryChunk][off%memoryChunk:min(memoryChunk, m.n-off/memoryChunk*memoryChunk)])
		read += c
		off += int64(c)
	}
	if read < len(p) {
		return read, io.EOF
	}
	return read, nil
}
