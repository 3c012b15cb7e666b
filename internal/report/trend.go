package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/jsonlimit"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// A scan's trend is its own figures after those of the scans before it. The
// history travels along the baselines: the runner reads the baseline's
// trend.json (the baseline's results are mounted read-only into the scan
// pod), appends this scan's point and writes the whole as this scan's
// trend.json, so a schedule, whose every scan names the one before as its
// baseline, keeps its history on the results volume without a store of its
// own.

// TrendFile is a scan's history next to its results.
const TrendFile = "trend.json"

// Bounds of a trend, so that a hostile or corrupted trend.json (the scan
// pods write the volume) costs little to read and nothing grows for ever.
const (
	// MaxTrendPoints is how many scans a trend keeps, newest last.
	MaxTrendPoints = 12
	// MaxTrendOrganisations is how many organisations a point keeps (most issues first).
	MaxTrendOrganisations = 50
	// maxTrendFileBytes caps reading trend.json.
	maxTrendFileBytes = 1 << 20
	// trendFormat names trend.json's format.
	trendFormat = "cwac-operator.trend/v1"
	// trendValuesPerOrganisation and trendValuesPerPoint are the values
	// (keys included) an organisation and a point's own fields take.
	trendValuesPerOrganisation = 11
	trendValuesPerPoint        = 12
)

// trendLimits bound what reading trend.json decodes, counted before
// anything is (a megabyte of "{}," would be 350,000 points): the values of
// MaxTrendPoints points of MaxTrendOrganisations organisations each, with
// room to spare, and no text longer than a results directory's path may be.
var trendLimits = jsonlimit.Limits{
	MaxDepth:   5,
	MaxValues:  2 * MaxTrendPoints * (trendValuesPerPoint + MaxTrendOrganisations*trendValuesPerOrganisation),
	MaxString:  4096,
	MaxDecoded: maxTrendFileBytes * 4,
}

// TrendPoint is one scan's figures in a trend.
type TrendPoint struct {
	ResultsDir string    `json:"results_dir"`
	Time       time.Time `json:"time"`
	// TotalIssues is in CWAC's count, less what was set aside
	// (TimingDependentWhy), as the organisations' figures are.
	TotalIssues   int64               `json:"total_issues"`
	Pages         int                 `json:"pages"`
	Organisations []TrendOrganisation `json:"organisations,omitempty"`
}

// TrendOrganisation is one organisation's figures in a point, in CWAC's
// count (the leaderboard's unit).
type TrendOrganisation struct {
	Organisation string `json:"organisation"`
	Issues       int64  `json:"issues"`
	Pages        int    `json:"pages"`
	// Score is left out when the scan found the organisation blocked or
	// unreachable (OrgScore.ScoreShown).
	Score *float64 `json:"score,omitempty"`
	// Completeness is the scan's verdict on the organisation ("" in points
	// written before trend.json carried it, or without completeness).
	Completeness string `json:"completeness,omitempty"`
}

type trendDocument struct {
	Format string       `json:"format"`
	Points []TrendPoint `json:"points"`
}

// TrendPoint is this scan's point: its totals and its leaderboard, with
// each organisation's completeness and, when it may be shown, its score.
func (b *Builder) TrendPoint(meta Meta, summary *results.Summary) TrendPoint {
	p := TrendPoint{ResultsDir: meta.ResultsDir, Time: meta.GeneratedAt.UTC(), TotalIssues: b.totalCount.total(), Pages: summary.PagesScanned}
	for _, o := range b.RankedBoard(summary) {
		t := TrendOrganisation{
			Organisation: o.Organisation, Issues: o.Critical + o.Serious + o.Moderate + o.Minor + o.Other, Pages: o.Pages,
			Completeness: o.Completeness,
		}
		if o.ScoreShown() {
			t.Score = o.Score
		}
		p.Organisations = append(p.Organisations, t)
	}
	slices.SortStableFunc(p.Organisations, func(a, b TrendOrganisation) int {
		if a.Issues != b.Issues {
			return int(b.Issues - a.Issues)
		}
		return strings.Compare(a.Organisation, b.Organisation)
	})
	if len(p.Organisations) > MaxTrendOrganisations {
		p.Organisations = p.Organisations[:MaxTrendOrganisations]
	}
	return p
}

// ReadTrend reads a trend.json: the file's points, at most MaxTrendPoints.
// A missing file is no history (nil, nil); one that is too large, not the
// format, or out of bounds is an error, and the caller starts afresh.
func ReadTrend(fsys fs.FS) ([]TrendPoint, error) {
	f, err := fsys.Open(TrendFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", TrendFile)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTrendFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", TrendFile, err)
	}
	if len(data) > maxTrendFileBytes {
		return nil, fmt.Errorf("%s is more than %d bytes", TrendFile, maxTrendFileBytes)
	}
	if err := jsonlimit.Check(data, trendLimits); err != nil {
		return nil, fmt.Errorf("%s: %w", TrendFile, err)
	}
	var doc trendDocument
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", TrendFile, err)
	}
	if doc.Format != trendFormat {
		return nil, fmt.Errorf("%s: format %q, want %q", TrendFile, doc.Format, trendFormat)
	}
	if len(doc.Points) > MaxTrendPoints {
		return nil, fmt.Errorf("%s: %d points, more than %d", TrendFile, len(doc.Points), MaxTrendPoints)
	}
	for _, p := range doc.Points {
		if len(p.Organisations) > MaxTrendOrganisations || len(p.ResultsDir) > 512 {
			return nil, fmt.Errorf("%s: a point beyond the bounds (%d organisations)", TrendFile, len(p.Organisations))
		}
	}
	return doc.Points, nil
}

// AppendTrend is history followed by p, keeping the newest MaxTrendPoints.
func AppendTrend(history []TrendPoint, p TrendPoint) []TrendPoint {
	out := append(slices.Clone(history), p)
	if len(out) > MaxTrendPoints {
		out = out[len(out)-MaxTrendPoints:]
	}
	return out
}

// EncodeTrend renders trend.json.
func EncodeTrend(points []TrendPoint) ([]byte, error) {
	return json.MarshalIndent(trendDocument{Format: trendFormat, Points: points}, "", "  ")
}

// trendView is the report's "Over time" section: one row per organisation
// of the newest point (at most maxTrendRows), one column per scan.
type trendView struct {
	Scans []string
	Total []string
	Rows  []trendRow
	More  int
}

type trendRow struct {
	Organisation string
	Cells        []string
}

const maxTrendRows = 20

func trendOf(points []TrendPoint) *trendView {
	if len(points) < 2 {
		return nil
	}
	v := &trendView{}
	for _, p := range points {
		v.Scans = append(v.Scans, p.Time.Format("2 Jan 2006 15:04"))
		v.Total = append(v.Total, number(p.TotalIssues))
	}
	last := points[len(points)-1].Organisations
	for i, o := range last {
		if i == maxTrendRows {
			v.More = len(last) - maxTrendRows
			break
		}
		row := trendRow{Organisation: o.Organisation}
		for _, p := range points {
			cell := "–"
			for _, po := range p.Organisations {
				if po.Organisation == o.Organisation {
					cell = trendCell(po)
					break
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// trendCell is an organisation's figure in one scan of the "Over time"
// table: its issues, or the verdict of a scan that found it blocked or
// unreachable, whose count (often 0) would read as a clean site.
func trendCell(o TrendOrganisation) string {
	if !results.Verdict(o.Completeness).ScoreShown() {
		return o.Completeness
	}
	return number(o.Issues)
}
