package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/scanstatus"
)

// SummaryInput are cwac_get_summary's arguments.
type SummaryInput struct {
	ScanID    string `json:"scan_id" jsonschema:"the scan's ID"`
	Recompute bool   `json:"recompute,omitempty" jsonschema:"compute the summary again from the result CSVs instead of reading the one the scan recorded"`
}

// Where a summary came from (SummaryOutput.Source).
const (
	sourceSummaryFile = results.SummaryFile // the scan pod's summary.json
	sourceStatus      = "status"            // the CwacScan's status
	sourceResults     = "results"           // recomputed from the CSVs
)

// SummaryOutput is cwac_get_summary's answer: the original CWAC MCP server's
// summary shape, plus where it came from.
type SummaryOutput struct {
	ScanID     string `json:"scan_id"`
	Status     string `json:"status"`
	ResultsDir string `json:"results_dir"`
	Source     string `json:"source" jsonschema:"summary.json (written by the scan pod), status (the scan's recorded summary, which lacks per-site page counts) or results (computed from the CSVs)"`
	Note       string `json:"note,omitempty"`
	results.Summary
}

// maxSummaryFileBytes caps summary.json: it lists every base URL, and 4 MiB
// holds far more than the most URLs a scan may have.
const maxSummaryFileBytes = 4 << 20

// getSummaryDescription is what MCP clients show of cwac_get_summary.
const getSummaryDescription = "Get a scan's summary: total issues, issues by audit type and impact, top violations, " +
	"pages and URLs scanned, duration. Read from the summary the scan recorded; recompute reads the result CSVs again."

func init() { defineTool("cwac_get_summary", getSummaryDescription, true, (*Server).getSummary) }

// getSummary answers from what the scan recorded when it can, since the CSVs
// of a large scan take long to read: the scan pod's summary.json first, then
// the summary in the scan's status, and only then the CSVs themselves.
// recompute asks for the CSVs directly.
func (s *Server) getSummary(ctx context.Context, call *callInfo, in SummaryInput) (SummaryOutput, error) {
	out, err := s.summary(ctx, call, in)
	out.ScanID = in.ScanID
	if err == nil {
		fitSummary(&out, s.cfg.MaxResponseBytes-summaryAnswerReserve)
	}
	return out, err
}

// summaryAnswerReserve is what fitSummary leaves of the answer's size for
// the note it adds.
const summaryAnswerReserve = 1024

func (s *Server) summary(ctx context.Context, call *callInfo, in SummaryInput) (SummaryOutput, error) {
	res, err := s.access.results(ctx, call, in.ScanID)
	if err != nil {
		// A finished scan whose files are gone still has its recorded summary.
		if out, ok := statusSummary(res); ok && !in.Recompute && res.Scan.Status.Phase.Finished() {
			out.ResultsDir = res.Scan.Status.ResultsPath
			return out, nil
		}
		return SummaryOutput{}, err
	}
	fsys, closeFn, err := s.access.openResults(ctx, res)
	if err != nil {
		return SummaryOutput{}, err
	}
	defer closeFn()
	var recordedErr error
	if !in.Recompute {
		out, err := recordedSummary(fsys, res)
		if err == nil {
			return out, nil
		}
		recordedErr = err
	}
	sum, err := recomputeSummary(fsys, res)
	if err != nil {
		return SummaryOutput{}, err
	}
	out := newSummaryOutput(res, sourceResults, sum)
	if recordedErr != nil && !errors.Is(recordedErr, fs.ErrNotExist) {
		out.Note = joinNotes("summary.json could not be used ("+truncate(recordedErr.Error(), 512)+"), so the summary was computed from the CSVs.", out.Note)
	}
	return out, nil
}

// recordedSummary is the scan pod's summary.json, else the status summary.
// It fails with fs.ErrNotExist when neither exists, or with the reason
// summary.json could not be used when there is no status to fall back on.
func recordedSummary(fsys fs.FS, res scanResults) (SummaryOutput, error) {
	sum, fileErr := readSummaryFile(fsys)
	if fileErr == nil {
		return newSummaryOutput(res, sourceSummaryFile, sum), nil
	}
	if out, ok := statusSummary(res); ok {
		if !errors.Is(fileErr, fs.ErrNotExist) {
			out.Note = joinNotes("summary.json could not be used ("+truncate(fileErr.Error(), 512)+"), so the scan's recorded status summary is shown.", out.Note)
		}
		return out, nil
	}
	return SummaryOutput{}, fileErr
}

// readSummaryFile reads summary.json through the confined root: at most
// maxSummaryFileBytes, decoded within results.SummaryLimits.
func readSummaryFile(fsys fs.FS) (*results.Summary, error) {
	data, err := readFile(fsys, results.SummaryFile, maxSummaryFileBytes)
	if err != nil {
		return nil, err
	}
	return results.ReadSummary(data)
}

// statusSummary is the summary the operator kept in the scan's status.
func statusSummary(res scanResults) (SummaryOutput, bool) {
	if res.Scan == nil || res.Scan.Status.Summary == nil {
		return SummaryOutput{}, false
	}
	return newSummaryOutput(res, sourceStatus, scanstatus.FromAPI(res.Scan.Status.Summary)), true
}

// recomputeSummary reads the CSVs. CWAC's run time is not in them: it is
// taken from the status when the operator recorded it.
func recomputeSummary(fsys fs.FS, res scanResults) (*results.Summary, error) {
	var expected []string
	if res.Scan != nil {
		if sites, err := scanspec.Sites(res.Scan); err == nil {
			for _, site := range sites {
				expected = append(expected, site.URL)
			}
		}
	}
	sum, err := results.SummarizeFS(fsys, results.Options{ExpectedBaseURLs: expected})
	if err != nil {
		return nil, fmt.Errorf("summarising results: %w", err)
	}
	sum.Signals = summarySignals(context.Background(), fsys)
	if res.Scan != nil && res.Scan.Status.Summary != nil && res.Scan.Status.Summary.DurationSeconds > 0 {
		sum.DurationSeconds = float64(res.Scan.Status.Summary.DurationSeconds)
	}
	return sum, nil
}

// newSummaryOutput is the answer for sum, capped (capSummary) whatever
// its source: a file, the status or the CSVs, all written by a scan pod.
func newSummaryOutput(res scanResults, source string, sum *results.Summary) SummaryOutput {
	note := joinNotes(capSummary(sum), capSignals(sum.Signals))
	out := SummaryOutput{Status: res.Status, ResultsDir: res.Dir, Source: source, Note: note, Summary: *sum}
	// Empty, not null: clients iterate these without checking.
	if out.IssuesByAuditType == nil {
		out.IssuesByAuditType = map[string]int64{}
	}
	if out.IssuesByImpact == nil {
		out.IssuesByImpact = map[string]int64{}
	}
	if out.Informational == nil {
		out.Informational = map[string]int64{}
	}
	if out.TopViolations == nil {
		out.TopViolations = []results.Violation{}
	}
	if out.UnscannedBaseURLs == nil {
		out.UnscannedBaseURLs = []string{}
	}
	return out
}

// joinNotes joins the notes that are not empty.
func joinNotes(notes ...string) string {
	kept := slices.DeleteFunc(slices.Clone(notes), func(n string) bool { return n == "" })
	return strings.Join(kept, " ")
}
