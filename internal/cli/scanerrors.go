package cli

// The API server is the one judge of a scan: the CRD (api/v1alpha1) states
// what a valid CwacScan is, so the plugin keeps no copy of its URL rules.
// What it adds is the refusal in the plugin's own terms: each field the
// server refused is named by the flag that set it.

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// maxScanCauses bounds how many of the API server's reasons an error lists.
const maxScanCauses = 8

// scanFlags maps spec fields to the `kubectl cwac scan` flags that set them.
var scanFlags = []struct{ field, flag string }{
	{"metadata.name", "--name"},
	{"spec.urls", "--url or --urls-file"},
	{"spec.sites", "--site or --urls-file"},
	{"spec.auditName", "--audit-name"},
	{"spec.timeout", "--timeout"},
	{"spec.threadCount", "--threads"},
	{"spec.maxLinksPerDomain", "--max-links-per-domain"},
	{"spec.baseline", "--baseline"},
	{"spec.configOverrides", "--allow-http"},
	{"spec.thresholds.maxIssuesByImpact", "--max-critical"},
	{"spec.thresholds.maxTotalIssues", "--max-total"},
	{"spec.thresholds.maxNewIssues", "--max-new"},
	{"spec.shards", "--shards"},
	{"spec.shardFailurePolicy", "--shard-failure-policy"},
}

// scanInvalidError turns the API server's Invalid answer to a new scan into
// an error naming each refused flag and field and why, e.g.
//
//	the API server refused the scan: --url or --urls-file (spec.urls[0]): Invalid value: "ftp://x/": should match '^https?://…'
//
// It returns nil for any other error.
func scanInvalidError(err error) error {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Reason != metav1.StatusReasonInvalid {
		return nil
	}
	st := status.Status()
	var parts []string
	if st.Details != nil {
		for i, c := range st.Details.Causes {
			if i == maxScanCauses {
				parts = append(parts, fmt.Sprintf("and %d more", len(st.Details.Causes)-maxScanCauses))
				break
			}
			parts = append(parts, scanCauseText(c))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, textcap.Head(st.Message, 1024))
	}
	return errors.New("the API server refused the scan: " + strings.Join(parts, "; "))
}

// scanCauseText is one cause as "flag (field): why". The API server repeats
// the field in some messages ("spec.x in body should …"); that is dropped.
func scanCauseText(c metav1.StatusCause) string {
	msg := textcap.Head(strings.ReplaceAll(c.Message, c.Field+" in body ", ""), 512)
	if c.Field == "" {
		return msg
	}
	for _, m := range scanFlags {
		if rest, ok := strings.CutPrefix(c.Field, m.field); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
			return m.flag + " (" + c.Field + "): " + msg
		}
	}
	return c.Field + ": " + msg
}
