package mcpserver

import (
	"strings"
	"testing"
)

func TestParseResourceURI(t *testing.T) {
	tests := []struct {
		uri, wantScan, wantFile, wantErr string
	}{
		{uri: "cwac://scans/ns/weekly-1/report.html", wantScan: "weekly-1", wantFile: "report.html"},
		{uri: "cwac://scans/ns/weekly-1/axe_core_audit.csv", wantScan: "weekly-1", wantFile: "axe_core_audit.csv"},
		{uri: "cwac://scans/ns/weekly-1/pages_scanned.csv", wantScan: "weekly-1", wantFile: "pages_scanned.csv"},
		{uri: "cwac://scans/ns/weekly-1/diff.json", wantScan: "weekly-1", wantFile: "diff.json"},
		{uri: "cwac://scans/ns/weekly-1/trend.json", wantScan: "weekly-1", wantFile: "trend.json"},
		{uri: "cwac://scans/ns/weekly-1/config.json", wantErr: "is not a file a scan's resources hold"},
		{uri: "cwac://scans/ns/weekly-1/screenshots/a.png", wantErr: "not a CWAC resource URI"},
		{uri: "cwac://scans/ns/weekly-1/..%2F..%2Fetc%2Fpasswd", wantErr: "is not a file"},
		{uri: "cwac://scans/ns/../report.html", wantErr: "must be Kubernetes names"},
		{uri: "cwac://scans/ns/Weekly/report.html", wantErr: "must be Kubernetes names"},
		{uri: "file:///etc/passwd", wantErr: "not a CWAC resource URI"},
		{uri: "cwac://other/ns/weekly-1/report.html", wantErr: "not a CWAC resource URI"},
		{uri: "cwac://scans/ns/weekly-1/report.html?x=1", wantErr: "not a CWAC resource URI"},
		{uri: "cwac://u@scans/ns/weekly-1/report.html", wantErr: "not a CWAC resource URI"},
		{uri: "cwac://scans/ns/weekly-1/chromedriver.log", wantErr: "is not a file"},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			_, scan, file, err := parseResourceURI(tt.uri)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || scan != tt.wantScan || file != tt.wantFile {
				t.Errorf("= %q %q %v", scan, file, err)
			}
		})
	}
}
