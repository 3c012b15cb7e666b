package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"strings"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/gate"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// ciReports are the CI formats among a scan's resources (docs/ci.md): read
// from the volume where the runner wrote them, else built from the results
// as they are read (a scan finished before the runner wrote them), under
// the same cap as any resource.
var ciReports = map[string]func(context.Context, io.Writer, fs.FS, cireport.Options) error{
	cireport.SARIFFile: cireport.WriteSARIF,
	cireport.JUnitFile: cireport.WriteJUnit,
}

// MIME types of the CI formats.
const (
	mimeSARIF = "application/sarif+json"
	mimeXML   = "application/xml"
)

// readScanFile reads one file of a scan's results, at most limit bytes. A CI
// report is read from the volume where the runner wrote it at the default
// fail-at impact; one the volume lacks, or asked for at another impact, is
// built from the results with opts, and never written to the volume.
func readScanFile(ctx context.Context, fsys fs.FS, file string, opts cireport.Options, limit int64) ([]byte, error) {
	write, isReport := ciReports[file]
	if !isReport || opts.FailAt == "" || opts.FailAt == cireport.DefaultFailAt {
		data, err := readFile(fsys, file, limit)
		if err == nil || !isReport || !errors.Is(err, fs.ErrNotExist) {
			return data, err
		}
	}
	buf := &cappedBuffer{name: file, limit: limit}
	if err := write(ctx, buf, fsys, opts); err != nil {
		return nil, err
	}
	return buf.data, nil
}

// ciReportOptions is what a CI report built here says of the scan, as the
// runner's own says it (internal/runner): the CwacScan's name and
// namespace (which names an issue the results' issue_ids.txt does not), its
// thresholds, the baseline when the scan was compared with it, and its own
// image when it names one (the operator's default image is not known
// here); and the fail-at impact asked for. A results directory with no
// CwacScan (run by hand) is named by its ID alone.
func ciReportOptions(scanID string, scan *cwacv1alpha1.CwacScan, failAt string) cireport.Options {
	opts := cireport.Options{Scan: scanID, FailAt: failAt}
	if scan == nil {
		return opts
	}
	opts.Scan, opts.Namespace = scan.Name, scan.Namespace
	opts.Thresholds = gate.NamedThresholds(scan.Spec.Thresholds)
	if summary := scan.Status.Summary; summary != nil && summary.Diff != nil {
		opts.Baseline = scan.Spec.Baseline
	}
	opts.ToolVersion = scan.Spec.Image
	return opts
}

// splitFailAt takes the query off a resource URI: the CI reports' fail_at
// parameter (cireport.FailAtParameter), one of axe's impacts, is the only
// one a resource takes. It returns the URI without its query and the
// impact ("" when not given).
func splitFailAt(uri string) (base, failAt string, err error) {
	before, query, found := strings.Cut(uri, "?")
	if !found {
		return uri, "", nil
	}
	values, err := url.ParseQuery(query)
	if err != nil {
		return "", "", fmt.Errorf("the query of %q is not URL-encoded: %v", truncate(uri, 256), err)
	}
	for key := range values {
		if key != cireport.FailAtParameter {
			return "", "", fmt.Errorf("query parameter %q: the only one a resource takes is %s (junit.xml and results.sarif)",
				truncate(key, 64), cireport.FailAtParameter)
		}
	}
	impacts := results.Impacts()
	got := values[cireport.FailAtParameter]
	if len(got) != 1 || !slices.Contains(impacts, got[0]) {
		return "", "", fmt.Errorf("%s=%s: must be given once, as one of %s", cireport.FailAtParameter,
			truncate(strings.Join(got, ","), 64), strings.Join(impacts, ", "))
	}
	if _, isReport := ciReports[path.Base(before)]; !isReport {
		return "", "", fmt.Errorf("%s applies only to %s and %s, not %s", cireport.FailAtParameter,
			cireport.JUnitFile, cireport.SARIFFile, truncate(path.Base(before), 128))
	}
	return before, got[0], nil
}

// cappedBuffer keeps what is written up to limit bytes and fails the write
// that would pass it, so a report is never built larger than may be sent.
type cappedBuffer struct {
	name  string
	limit int64
	data  []byte
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if int64(len(b.data))+int64(len(p)) > b.limit {
		return 0, fmt.Errorf("%s is more than the %d bytes this server reads", b.name, b.limit)
	}
	b.data = append(b.data, p...)
	return len(p), nil
}
