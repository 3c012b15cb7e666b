package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// ReportInput are cwac_generate_report's arguments.
type ReportInput struct {
	ScanID     string `json:"scan_id" jsonschema:"the scan's ID"`
	Regenerate bool   `json:"regenerate,omitempty" jsonschema:"render the reports again from the result CSVs and return them in the answer, even if the scan pod wrote them"`
}

// ReportOutput is cwac_generate_report's answer.
type ReportOutput struct {
	ScanID                string   `json:"scan_id"`
	Files                 []string `json:"files" jsonschema:"report files on the results volume, relative to it; empty when the reports were rendered into this answer"`
	ReportHTML            string   `json:"report_html,omitempty" jsonschema:"path of report.html on the results volume, when the scan pod wrote it"`
	LeaderboardCSV        string   `json:"leaderboard_csv,omitempty" jsonschema:"path of leaderboard.csv on the results volume, when the scan pod wrote it"`
	Generated             bool     `json:"generated" jsonschema:"true when the reports were rendered for this answer (their text is in report_html_content and leaderboard_csv_content); false when the scan pod's files are returned"`
	ReportHTMLContent     string   `json:"report_html_content,omitempty" jsonschema:"the self-contained HTML report, when rendered for this answer"`
	LeaderboardCSVContent string   `json:"leaderboard_csv_content,omitempty" jsonschema:"the leaderboard CSV, when rendered for this answer"`
	Truncated             bool     `json:"truncated,omitempty" jsonschema:"true when a rendered report was cut to fit the answer (see note)"`
	Note                  string   `json:"note,omitempty"`
	Scoring               string   `json:"scoring"`
	Resources             []string `json:"resources,omitempty" jsonschema:"MCP resource URIs of the scan's report files (resources/read them; the answer also carries resource links)"`
}

// links are resource links to the report files the scan pod wrote.
func (o ReportOutput) links() []mcp.Content {
	out := make([]mcp.Content, 0, len(o.Resources))
	for _, uri := range o.Resources {
		_, _, file, err := parseResourceURI(uri)
		if err == nil {
			out = append(out, &mcp.ResourceLink{URI: uri, Name: file, MIMEType: mimeType(file)})
		}
	}
	return out
}

const scoringNote = "Leaderboard score = max(0, 100 - weighted issues per page scanned); " +
	"axe-core issues weigh critical 10, serious 5, moderate 2, minor 1; other audits' issues 3. Higher is better; " +
	"equal scores share a rank (1, 1, 3). " +
	"Organisations whose scan was not complete (partial, blocked or unreachable) are not ranked, and a blocked or unreachable " +
	"one's score is not shown either; leaderboard.csv's completeness_reason says why."

// reportAnswerReserve is kept from the answer cap for everything in the
// answer but the rendered files.
const reportAnswerReserve = 2048

// generateReportDescription is what MCP clients show of cwac_generate_report.
const generateReportDescription = "Get a complete scan's self-contained HTML report and per-organisation leaderboard CSV: " +
	"the paths of the files the scan pod wrote, or, when they are missing or regenerate is asked, " +
	"the reports rendered from the results and returned in the answer. Writes nothing."

func init() {
	defineTool("cwac_generate_report", generateReportDescription, true, (*Server).generateReport)
}

// generateReport never writes: the results volume is the scan pod's, and the
// MCP server may mount it read-only. The scan pod writes report.html and
// leaderboard.csv after every scan; those are returned by path. When they
// are missing (older scans, results run by hand) or regenerate is asked,
// the reports are rendered in memory and returned in the answer.
func (s *Server) generateReport(ctx context.Context, call *callInfo, in ReportInput) (ReportOutput, error) {
	res, err := s.access.results(ctx, call, in.ScanID)
	if err != nil {
		return ReportOutput{}, err
	}
	fsys, closeFn, err := s.access.openResults(ctx, res)
	if err != nil {
		return ReportOutput{}, err
	}
	defer closeFn()
	out := ReportOutput{ScanID: in.ScanID, Files: []string{}, Scoring: scoringNote}
	if !in.Regenerate && isRegularFile(fsys, report.HTMLFile) && isRegularFile(fsys, report.LeaderboardFile) {
		out.ReportHTML = path.Join(res.Dir, report.HTMLFile)
		out.LeaderboardCSV = path.Join(res.Dir, report.LeaderboardFile)
		out.Files = []string{out.ReportHTML, out.LeaderboardCSV}
		if res.Scan != nil {
			for _, f := range []string{report.HTMLFile, report.LeaderboardFile} {
				out.Resources = append(out.Resources, resourceURI(res.Scan.Namespace, res.Scan.Name, f))
			}
		}
		return out, nil
	}
	rendered, err := renderReports(fsys, res, s.now)
	if err != nil {
		return ReportOutput{}, err
	}
	out.Generated = true
	s.fitReports(&out, rendered)
	return out, nil
}

// renderReports runs the report generator with a write callback that keeps
// the files in memory.
func renderReports(fsys fs.FS, res scanResults, now func() time.Time) (map[string][]byte, error) {
	title := path.Base(res.Dir)
	if res.Scan != nil {
		title = scanspec.AuditName(res.Scan)
	}
	files := map[string][]byte{}
	// ServerLimits: the results are a scan pod's, read in this server's memory.
	meta := report.Meta{Title: title, ResultsDir: res.Dir, GeneratedAt: now(), Limits: report.ServerLimits}
	_, err := report.Generate(fsys, meta, func(name string, data []byte) error {
		files[name] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rendering reports: %w", err)
	}
	return files, nil
}

// fitReports puts the rendered files into the answer within the answer cap:
// the leaderboard first (small, and the part most often wanted), then the
// HTML report. What does not fit is cut at a line end and said so.
func (s *Server) fitReports(out *ReportOutput, files map[string][]byte) {
	budget := s.cfg.MaxResponseBytes - reportAnswerReserve - jsonSize(scoringNote)
	var notes []string
	add := func(name string, dst *string) {
		text, cut := fitJSON(string(files[name]), budget)
		*dst = text
		budget -= jsonSize(text)
		if cut {
			out.Truncated = true
			notes = append(notes, fmt.Sprintf("%s is %d bytes; only its first %d are included, to keep the answer under %d bytes.",
				name, len(files[name]), len(text), s.cfg.MaxResponseBytes))
		}
	}
	add(report.LeaderboardFile, &out.LeaderboardCSVContent)
	add(report.HTMLFile, &out.ReportHTMLContent)
	if out.Truncated {
		notes = append(notes, "The scan pod writes the full reports to the results volume at the end of every scan.")
	}
	out.Note = strings.Join(notes, " ")
}

// fitJSON returns the longest prefix of s whose JSON encoding fits in budget
// bytes. It is cut at a line end when one is near, else between characters.
func fitJSON(s string, budget int) (string, bool) {
	if jsonSize(s) <= budget {
		return s, false
	}
	// Encoding grows text unevenly (< > & become \u003c …): start from the
	// average growth and shrink until the prefix fits.
	n := len(s) * budget / jsonSize(s)
	for n > 0 {
		cut := n
		if i := strings.LastIndexByte(s[:n], '\n'); i > 0 && i+1 >= n-n/16 {
			cut = i + 1
		} else {
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
		}
		if jsonSize(s[:cut]) <= budget {
			return s[:cut], true
		}
		n = cut - max(cut/32, 1)
	}
	return "", true
}

// jsonSize is the length of s encoded as a JSON string.
func jsonSize(s string) int {
	data, _ := json.Marshal(s)
	return len(data)
}
