package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"
)

// reportOutput is the part of cwac_generate_report's output used here.
type reportOutput struct {
	ReportHTMLContent string `json:"report_html_content"`
	Truncated         bool   `json:"truncated"`
	Note              string `json:"note"`
}

func newReportCommand(o *Options, mf *mcpFlags) *cobra.Command {
	var outFile string
	cmd := &cobra.Command{
		Use:   "report SCAN",
		Short: "Fetch a scan's report.html and open it in your browser (or --output FILE)",
		Long: `report renders the scan's HTML report on the MCP server (with your token) and
opens it in your browser. With --output, or when standard output is not a
terminal, it writes the file instead and never starts a browser.`,
		Args: exactlyOneScan,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := o.newSession()
			if err != nil {
				return err
			}
			if _, err := s.getScan(cmd, args[0]); err != nil {
				return err
			}
			interactive := outFile == "" && o.IsTerminal(o.Streams.Out)
			if outFile == "" && !interactive {
				return errors.New("not on a terminal: give --output FILE (a browser is only opened from a terminal)")
			}
			return withMCP(cmd.Context(), o, mf, s, func(conn *MCPConn, token string) error {
				raw, err := callTool(cmd.Context(), conn, token, "cwac_generate_report", map[string]any{"scan_id": args[0], "regenerate": true})
				if err != nil {
					return err
				}
				var rep reportOutput
				if err := json.Unmarshal(raw, &rep); err != nil {
					return fmt.Errorf("the MCP server's cwac_generate_report output: %w", err)
				}
				if rep.ReportHTMLContent == "" {
					return fmt.Errorf("the MCP server returned no report for %s: %s", args[0], rep.Note)
				}
				if rep.Truncated {
					fprintf(o.errOut(), "warning: the report was cut to fit the MCP server's answer cap (--max-response-bytes): %s\n", rep.Note)
				}
				path := outFile
				if path == "" {
					dir, err := os.MkdirTemp("", "kubectl-cwac-")
					if err != nil {
						return err
					}
					path = filepath.Join(dir, args[0]+"-report.html")
				}
				if err := os.WriteFile(path, []byte(rep.ReportHTMLContent), 0o600); err != nil {
					return fmt.Errorf("--output: %w", err)
				}
				fprintf(o.errOut(), "report written to %s\n", path)
				if interactive {
					return o.OpenBrowser(path)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVarP(&outFile, "output", "o", "", "write report.html to this file instead of opening a browser")
	return cmd
}

// openBrowser shows a local file with the desktop's opener.
func openBrowser(path string) error {
	name := "xdg-open"
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		return exec.Command("rundll32", "url.dll,FileProtocolHandler", path).Start()
	}
	if err := exec.Command(name, path).Start(); err != nil {
		return fmt.Errorf("opening a browser with %s (the report is at %s): %w", name, path, err)
	}
	return nil
}
