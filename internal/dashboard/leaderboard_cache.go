package dashboard

import (
	"context"
	"strings"
	"sync"

	"github.com/a11y-dev/cwac-operator/internal/store"
)

// The ranking of every organisation (Leaderboard, with its trends) is the
// costly part of the organisations page and the leaderboard exports: with
// 1,000 organisations of 156 scans, two queries of 1,000 and 12,000 rows
// (about 100 ms of CPU). It changes only when a scan is recorded or
// pruned, so it is kept per store and set of namespaces with the store's
// Generation, and computed again when that differs: every request reads
// the generation (one small query), so a page never shows a ranking older
// than the store's.

// maxBoards bounds the rankings kept (sets of namespaces times stores);
// past it, all are dropped.
const maxBoards = 32

type boardKey struct {
	st         *store.Store
	namespaces string
}

type boardEntry struct {
	gen     store.Generation
	figures LeaderboardFigures
}

var boards = struct {
	sync.Mutex
	m map[boardKey]boardEntry
}{m: map[boardKey]boardEntry{}}

// cachedLeaderboard is Leaderboard's figures for the namespaces, the kept
// ones when the store's generation has not changed since. The figures are
// shared: callers read them and never change them.
func cachedLeaderboard(ctx context.Context, st *store.Store, namespaces []string) (LeaderboardFigures, error) {
	// The generation is read first: a scan recorded while the ranking is
	// computed makes the next request compute it again, never keeps an
	// older ranking under a newer generation.
	gen, err := st.Generation(ctx, namespaces)
	if err != nil {
		return LeaderboardFigures{}, err
	}
	key := boardKey{st: st, namespaces: strings.Join(namespaces, "\x00")}
	boards.Lock()
	e, ok := boards.m[key]
	boards.Unlock()
	if ok && e.gen == gen {
		return e.figures, nil
	}
	figures, err := Leaderboard(ctx, st, namespaces)
	if err != nil {
		return LeaderboardFigures{}, err
	}
	boards.Lock()
	if len(boards.m) >= maxBoards {
		clear(boards.m)
	}
	boards.m[key] = boardEntry{gen: gen, figures: figures}
	boards.Unlock()
	return figures, nil
}

// sliceLeaderboard is rows offset..offset+limit of a leaderboard in its
// order (the sectors by name, each best first, then the organisations not
// ranked), in slices of their own (the rows are copied; their trends are
// shared and only read).
func sliceLeaderboard(all LeaderboardFigures, offset, limit int) LeaderboardSlice {
	out := LeaderboardSlice{Offset: offset, SectorSizes: map[string]int{}, SectorFrom: map[string]int{}, UnrankedSize: len(all.Unranked),
		Figures: LeaderboardFigures{Sectors: []Sector{}, Unranked: []LeaderboardRow{}}}
	take := func(rows []LeaderboardRow) ([]LeaderboardRow, int) {
		lo := min(max(offset-out.Total, 0), len(rows))
		hi := min(max(offset+limit-out.Total, 0), len(rows))
		out.Total += len(rows)
		if lo >= hi {
			return nil, 0
		}
		return append([]LeaderboardRow(nil), rows[lo:hi]...), lo + 1
	}
	for _, s := range all.Sectors {
		out.SectorSizes[s.Name] = len(s.Rows)
		if rows, from := take(s.Rows); len(rows) > 0 {
			out.Figures.Sectors = append(out.Figures.Sectors, Sector{Name: s.Name, Rows: rows})
			out.SectorFrom[s.Name] = from
		}
	}
	if rows, from := take(all.Unranked); len(rows) > 0 {
		out.Figures.Unranked, out.UnrankedFrom = rows, from
	}
	return out
}
