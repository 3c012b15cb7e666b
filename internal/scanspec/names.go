// Package scanspec is what a CwacScan means wherever it is read — by the
// controller, the Job builder and the MCP server — without building
// anything from it: the names made from it (its Job's and pods', its
// results directory, CWAC's audit name, the generated names of a scan made
// for an audit and of an Event recorded on a scan, and a schedule's scan for
// a tick) and its spec with the defaults applied (its sites, its deadline).
// It holds no client and no image library, so a reader of scans does not
// link the Job builder.
package scanspec

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwac"
)

// MaxNamePart is the most of an object's name that a name made from it
// keeps, so that the name made stays within the 63 characters of a label
// value (the Job controller labels a Job's pods with the Job's name):
//   - a schedule's scan, <schedule>-<tick in minutes, up to 10 digits>, is
//     at most 52 + 1 + 10 = 63 characters; the CRD refuses longer schedule
//     names (its metadata.name rule, held to this number by a test);
//   - a scan's Job and ConfigMap, <scan>-<8 characters of its UID>, at most
//     52 + 1 + 8 = 61.
//
// A sharded scan's Job keeps less (maxNameInShardedJobName).
const MaxNamePart = 52

// uidPrefixLength is how many characters of a scan's UID its objects' names carry.
const uidPrefixLength = 8

// mergeSuffix ends the name of a sharded scan's merge pod.
const mergeSuffix = "-merge"

// maxNameInShardedJobName keeps every name a sharded scan gets within a
// DNS label (63 characters, no dots). The API server refuses an Indexed Job
// unless <job>-<highest index> is one (its pods' hostnames), and the merge
// pod, <job>-merge, is then one too: 48 + 1 + 8 + 6 ("-merge") = 63, which
// also covers "-63" (scanpod.MaxShards - 1).
const maxNameInShardedJobName = validation.DNS1123LabelMaxLength - len(mergeSuffix) - 1 - uidPrefixLength

// JobName is the deterministic name of a scan's Job and ConfigMap: the same
// scan always maps to the same name, so a restarted operator finds the Job
// it made instead of starting a second one. It is the scan's name, cut to
// MaxNamePart (maxNameInShardedJobName for a sharded scan, whose dots also
// become dashes), a dash and the UID's first 8 characters.
func JobName(scan *cwacv1alpha1.CwacScan) string {
	name, most := scan.Name, MaxNamePart
	if scan.Spec.ShardCount() > 1 {
		name, most = strings.ReplaceAll(name, ".", "-"), maxNameInShardedJobName
	}
	return cutName(name, most) + "-" + uidPrefix(scan)
}

// MergePodName is the name of the pod that merges a sharded scan's results:
// <job>-merge, a DNS label for any sharded scan (see maxNameInShardedJobName).
func MergePodName(scan *cwacv1alpha1.CwacScan) string { return JobName(scan) + mergeSuffix }

// CleanupPodName is the name of the pod that deletes the scan's results.
func CleanupPodName(scan *cwacv1alpha1.CwacScan) string { return JobName(scan) + "-cleanup" }

// ScheduledScanName is the name of the scan a schedule creates for a tick:
// <schedule name>-<tick in minutes since 1970-01-01 UTC>. The same tick
// always gives the same name, so a restarted operator that meets the scan
// it already created for a tick adopts it instead of starting a second one.
// A schedule name longer than MaxNamePart is cut (the CRD refuses them).
func ScheduledScanName(scheduleName string, tick time.Time) string {
	return cutName(scheduleName, MaxNamePart) + "-" + strconv.FormatInt(tick.Unix()/60, 10)
}

// maxGeneratedPrefix bounds GenerateNamePrefix's words: with the dash and
// the API server's 5 random characters, a generated name is at most
// 40 + 1 + 5 = 46 characters, within MaxNamePart, so its Job's name keeps
// it whole.
const maxGeneratedPrefix = 40

var notInName = regexp.MustCompile(`[^a-z0-9-]+`)

// GenerateNamePrefix is the metadata.generateName of a scan created for an
// audit (the MCP server's cwac_scan): the audit name in lower case, each run
// of other characters a dash, cut to 40 characters, and a dash, so the
// scan's ID says which audit it is. Any audit name gives a valid prefix;
// one with nothing usable gives "mcp-scan-".
func GenerateNamePrefix(auditName string) string {
	p := strings.Trim(notInName.ReplaceAllString(strings.ToLower(auditName), "-"), "-")
	if p == "" {
		return "mcp-scan-"
	}
	return cutName(p, maxGeneratedPrefix) + "-"
}

// maxKeptGenerateName is how much of a metadata.generateName the API server
// keeps: it cuts a longer one to 58 characters, so that the name it makes,
// with 5 random characters added, is at most 63 (k8s.io/apiserver's
// names.MaxGeneratedNameLength).
const maxKeptGenerateName = 58

// EventNamePrefix is the metadata.generateName of an Event recorded on a
// scan: <scan name>-<source>-, where source is a short lower-case word
// saying what recorded it ("history", "created"), so that the Event's name
// says which scan it is about and where it comes from. The scan's name is cut (as
// cutName does) so that the whole prefix fits in what the API server keeps
// of a generateName: a longer prefix would lose the source word, not the
// scan's name.
func EventNamePrefix(scanName, source string) string {
	most := maxKeptGenerateName - len("-"+source+"-")
	return cutName(scanName, most) + "-" + source + "-"
}

// cutName keeps at most most characters of a Kubernetes name (ASCII), and
// no dash or dot left at the cut: a name made from it goes on with a dash.
func cutName(name string, most int) string {
	if len(name) <= most {
		return name
	}
	return strings.TrimRight(name[:most], "-.")
}

func uidPrefix(scan *cwacv1alpha1.CwacScan) string {
	uid := strings.ReplaceAll(string(scan.UID), "-", "")
	if len(uid) >= uidPrefixLength {
		return uid[:uidPrefixLength]
	}
	// Objects always have a UID from the API server; hash the name as a fallback.
	sum := sha256.Sum256([]byte(scan.Namespace + "/" + scan.Name))
	return hex.EncodeToString(sum[:uidPrefixLength/2])
}

// ScanDir is the scan's directory relative to the results volume's root:
// <namespace>/<name>-<uid prefix>.
func ScanDir(scan *cwacv1alpha1.CwacScan) string {
	return path.Join(scan.Namespace, scan.Name+"-"+uidPrefix(scan))
}

// AuditName is the scan's audit name, defaulted from its object name.
func AuditName(scan *cwacv1alpha1.CwacScan) string {
	if scan.Spec.AuditName != "" {
		return scan.Spec.AuditName
	}
	return cwac.AuditNameFrom(scan.Name)
}
