// Package pageruns keeps, for the pages of a scan read row by row, where
// each page's rows put their entries in a list built as the rows are read.
//
// CWAC writes a page's rows together, viewport after viewport, so what is
// learnt of a page (the elements told apart, the issue ids given) comes in
// runs: the entries added while one page's rows came together. A reader
// that holds only the page being read needs the entries of its earlier
// runs when its rows come back after other pages'; Runs finds them, at a
// few words a run, and Blocks keeps entries in memory without copying what
// it holds as it grows.
package pageruns

import "iter"

// Runs are the runs of each page, by a hash of the page: a run is the
// places [start, end) its entries took in the list. Two pages with the same
// hash share their runs.
type Runs struct {
	runs []run
	last map[uint64]int32 // by page: its last run (in runs)
}

// run is one run of a page and the page's run before it (-1: none): twelve
// bytes, where a scan can have a run every few rows.
type run struct {
	start, end uint32
	prev       int32
}

// Add records [start, end) as the page's latest run; an empty run is not
// recorded.
func (r *Runs) Add(page uint64, start, end uint32) {
	if start >= end {
		return
	}
	if r.last == nil {
		r.last = map[uint64]int32{}
	}
	prev, ok := r.last[page]
	if !ok {
		prev = -1
	}
	r.runs = append(r.runs, run{start: start, end: end, prev: prev})
	r.last[page] = int32(len(r.runs) - 1)
}

// Of yields the page's runs, latest first, as (start, end).
func (r *Runs) Of(page uint64) iter.Seq2[uint32, uint32] {
	return func(yield func(uint32, uint32) bool) {
		i, ok := r.last[page]
		for ; ok && i >= 0; i = r.runs[i].prev {
			if !yield(r.runs[i].start, r.runs[i].end) {
				return
			}
		}
	}
}

// Len is how many runs are recorded.
func (r *Runs) Len() int { return len(r.runs) }

// Pages is how many pages have a run.
func (r *Runs) Pages() int { return len(r.last) }

// Blocks is a list that grows in blocks of BlockLen entries: growing
// never copies what it holds, nor leaves a larger array half used. Its
// places are 32 bits; the caller keeps it within them.
type Blocks[T any] struct {
	blocks [][]T
	n      uint32
}

// BlockLen is how many entries a block holds.
const BlockLen = 4096

// Append adds v at place Len().
func (b *Blocks[T]) Append(v T) {
	if b.n%BlockLen == 0 {
		b.blocks = append(b.blocks, make([]T, 0, BlockLen))
	}
	last := &b.blocks[len(b.blocks)-1]
	*last = append(*last, v)
	b.n++
}

// At is the entry at place i (< Len()).
func (b *Blocks[T]) At(i uint32) T { return b.blocks[i/BlockLen][i%BlockLen] }

// Len is how many entries the list holds.
func (b *Blocks[T]) Len() uint32 { return b.n }
