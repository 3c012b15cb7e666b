package scanspec

import (
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
)

// DefaultTimeout is the deadline of a scan that sets none: the CRD's
// default for spec.timeout (a test holds the two together).
const DefaultTimeout = time.Hour

// Sites returns the scan's base URLs with defaults applied
// (cwacconfig.NormalizeSites): its plain URLs, then its sites.
func Sites(scan *cwacv1alpha1.CwacScan) ([]cwacconfig.Site, error) {
	sites := make([]cwacconfig.Site, 0, len(scan.Spec.Sites))
	for _, s := range scan.Spec.Sites {
		sites = append(sites, cwacconfig.Site{URL: s.URL, Organisation: s.Organisation, Sector: s.Sector})
	}
	return cwacconfig.NormalizeSites(scan.Spec.URLs, sites)
}

// Timeout is the scan's deadline.
func Timeout(scan *cwacv1alpha1.CwacScan) time.Duration {
	if d, err := time.ParseDuration(scan.Spec.Timeout); err == nil && d > 0 {
		return d
	}
	return DefaultTimeout // the CRD defaults and validates it; this covers objects from elsewhere
}
