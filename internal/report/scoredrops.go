package report

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/textcap"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// ScoreDrops are the organisations whose leaderboard score fell from the
// baseline's leaderboard (before) to the scan's (now), largest fall first,
// then by name. Scores are compared as the leaderboard shows them (one
// decimal). An organisation is left out when either scan has no score for
// it, or either scan found it blocked or unreachable: such a score
// describes only what a firewall let through (the scan's incompleteness is
// reported on its own).
func ScoreDrops(now, before []OrgScore) []results.OrganisationScoreDrop {
	// Names are compared as leaderboard.csv writes them (SafeCell), as a
	// baseline's come from its file (ReadLeaderboard).
	previous := make(map[string]OrgScore, len(before))
	for _, o := range before {
		previous[SafeCell(o.Organisation)] = o
	}
	var out []results.OrganisationScoreDrop
	for _, o := range now {
		b, ok := previous[SafeCell(o.Organisation)]
		if !ok || o.Score == nil || b.Score == nil ||
			!results.Verdict(o.Completeness).ScoreShown() || !results.Verdict(b.Completeness).ScoreShown() {
			continue
		}
		d := results.OrganisationScoreDrop{Organisation: o.Organisation, Previous: round1(*b.Score), Current: round1(*o.Score)}
		if d.Drop() > 0 {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b results.OrganisationScoreDrop) int {
		if c := cmp.Compare(b.Drop(), a.Drop()); c != 0 {
			return c
		}
		return strings.Compare(a.Organisation, b.Organisation)
	})
	return out
}

// ReadLeaderboard reads the organisations of a results directory's
// leaderboard.csv, as Render wrote it, for ScoreDrops: each one's name (as
// SafeCell wrote it), its score as shown (nil where none is) and its
// completeness. A baseline's scores come from its own leaderboard, not
// from its results read again: the scan compared with it reads CWAC's
// files once. A file over maxLeaderboardBytes or maxLeaderboardRows, or
// not in Render's format, is an error.
func ReadLeaderboard(fsys fs.FS) ([]OrgScore, error) {
	f, err := fsys.Open(LeaderboardFile)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	lr := &io.LimitedReader{R: f, N: maxLeaderboardBytes + 1}
	r := csv.NewReader(lr)
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", LeaderboardFile, err)
	}
	header = slices.Clone(header) // the reader reuses its record
	if len(header) < len(leaderboardHeader) || !slices.Equal(header[:len(leaderboardHeader)], leaderboardHeader) {
		return nil, fmt.Errorf("%s: not a leaderboard: its first row is not %s's columns", LeaderboardFile, LeaderboardFile)
	}
	var out []OrgScore
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if lr.N <= 0 { // cut at the bound: that is what went wrong
				break
			}
			return nil, fmt.Errorf("%s: %w", LeaderboardFile, err)
		}
		if len(out) == maxLeaderboardRows {
			return nil, fmt.Errorf("%s: more than %d organisations", LeaderboardFile, maxLeaderboardRows)
		}
		o := OrgScore{Organisation: rec[boardOrganisation], Completeness: rec[boardCompleteness]}
		if cell := rec[boardScore]; cell != "" {
			score, err := strconv.ParseFloat(cell, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: line %d: score %q is not a number", LeaderboardFile, len(out)+2, textcap.Head(cell, 32))
			}
			o.Score = &score
		}
		out = append(out, o)
	}
	if lr.N <= 0 {
		return nil, fmt.Errorf("%s: larger than %d bytes", LeaderboardFile, maxLeaderboardBytes)
	}
	return out, nil
}

// Bounds on a leaderboard.csv ReadLeaderboard reads: a hundred times the
// organisations a government-wide scan has, and a few hundred bytes a row.
const (
	maxLeaderboardRows  = 50_000
	maxLeaderboardBytes = 16 << 20
)

// The columns ReadLeaderboard reads, by position in leaderboardHeader.
var (
	boardOrganisation = slices.Index(leaderboardHeader, "organisation")
	boardScore        = slices.Index(leaderboardHeader, "score")
	boardCompleteness = slices.Index(leaderboardHeader, "completeness")
)

// RankedBoard is the builder's leaderboard ranked with summary's
// completeness, as report.html and leaderboard.csv show it.
func (b *Builder) RankedBoard(summary *results.Summary) []OrgScore {
	return rankComplete(b.Leaderboard(), summary.Completeness)
}
