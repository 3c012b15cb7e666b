package dashboard

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// ScanSource gives the scan pages their scans and result files. The
// binary implements it over the CwacScans (the MCP server's cache) and the
// results volume (the MCP tools' confined access), so this package needs
// neither the API types nor a Kubernetes client.
type ScanSource interface {
	// ListScans returns the scans of the namespaces, newest first.
	ListScans(ctx context.Context, namespaces []string) ([]ScanInfo, error)
	// GetScan returns one scan; ErrScanNotFound (wrapped) when there is none.
	GetScan(ctx context.Context, namespace, name string) (ScanInfo, error)
	// OpenResults opens a scan's results directory, confined to it
	// (regular files only, nothing outside it); the func releases it.
	// ErrNoResults (wrapped) when the scan has none.
	OpenResults(ctx context.Context, namespace, name string) (fs.FS, func(), error)
}

// Errors a ScanSource returns.
var (
	ErrScanNotFound = errors.New("no such scan")
	ErrNoResults    = errors.New("the scan has no results directory")
)

// ScanInfo is one scan as the scan pages show it: the CwacScan's status,
// translated by the ScanSource.
type ScanInfo struct {
	Namespace string
	Name      string
	// UID tells this scan from an earlier one of the same name.
	UID string
	// Schedule is the CwacScanSchedule that created it ("" for none).
	Schedule string
	// Phase is Pending, Queued, Running, Complete or Failed.
	Phase    string
	Created  time.Time
	Finished *time.Time
	// Message is the status's one line for people.
	Message  string
	Failure  *ScanFailure
	Baseline string
	Summary  *ScanSummary
	// ResultsPath is the results directory under the results root ("" for none).
	ResultsPath string
}

// ScanFailure is why a scan failed.
type ScanFailure struct {
	Reason   string
	ExitCode *int32
	Cause    string
	LogTail  string
}

// ScanSummary is a finished scan's compact result (the status's summary).
type ScanSummary struct {
	Pages, URLs       int32
	Issues            int64
	ByImpact          map[string]int64
	UnscannedBaseURLs []string
	DurationSeconds   int64
	Diff              *ScanDiff
}

// WithoutImpact is how many of the scan's issues have no axe-core impact
// (CWAC's own audits: focus indicator, reflow), so that the impacts shown
// and this add up to Issues.
func (s *ScanSummary) WithoutImpact() int64 {
	n := s.Issues
	for _, v := range s.ByImpact {
		n -= v
	}
	return max(n, 0)
}

// ScanDiff is the comparison with the scan's baseline.
type ScanDiff struct {
	Baseline                                                       string
	New, Fixed, Unchanged, Unstable                                int64
	PagesAdded, PagesRemoved, NewOnAddedPages, FixedOnRemovedPages int64
	ByOrganisation                                                 []OrganisationDiff
}

// OrganisationDiff is one organisation's share of a ScanDiff.
type OrganisationDiff struct {
	Organisation          string
	New, Fixed, Unchanged int64
	// NewByImpact counts the new issues by axe-core's impact.
	NewByImpact map[string]int64
}

// NewImpacts says how the organisation's new issues fall by impact, worst
// first ("critical 2, minor 1"), or "none" when none has an impact.
func (o OrganisationDiff) NewImpacts() string {
	var parts []string
	for _, impact := range results.Impacts() {
		if n := o.NewByImpact[impact]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", impact, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Phases a scan filter accepts, in the order a scan goes through them.
var phases = []string{"Pending", "Queued", "Running", "Complete", "Failed"}
