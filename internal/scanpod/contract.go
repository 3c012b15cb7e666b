// Package scanpod is the contract between the operator and the scan pod: the
// ConfigMap's file names, the paths the pod's volumes are mounted at, the
// container names, the runner's flags and exit codes, and the termination
// report the runner writes and the operator reads. The Job builder
// (internal/scanjob) and the runner (internal/runner) both import it, and
// neither imports the other.
package scanpod

import (
	"flag"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// Files of the scan's ConfigMap, mounted read-only at ConfigDir.
const (
	// OverridesFile holds the scan's CWAC config overrides (JSON).
	OverridesFile = "scan.json"
	// URLsFile holds the scan's base URLs as CWAC's base URL CSV.
	URLsFile = "urls.csv"
	// DefaultsFile, when present, is CWAC's config_default.json as the
	// operator was given it (--cwac-default-config, the chart's
	// cwac.defaultConfig): the runner merges the scan over it rather than
	// over the image's own config/config_default.json, which CWAC's official
	// image does not have (its .dockerignore leaves config/ out).
	DefaultsFile = "config_default.json"
)

// NoDefaultsFix says how to give scans CWAC's defaults; the operator (at
// admission) and the runner (in the pod) end their errors with it.
const NoDefaultsFix = "give the operator CWAC's defaults from a CWAC checkout " +
	"(helm upgrade ... --set-file cwac.defaultConfig=<cwac>/config/config_default.json, or the operator flag --cwac-default-config), " +
	"or use a CWAC image that carries config/config_default.json (spec.image, or the chart's cwac.image with cwac.imageHasDefaults=true)"

// Containers of the scan pod.
const (
	// ContainerName runs CWAC under the runner; the operator reads its
	// termination report.
	ContainerName = "cwac"
	// InitContainerName copies the runner from the operator's image into RunnerDir.
	InitContainerName = "install-runner"
)

// Paths inside the scan pod.
const (
	// RunnerImagePath is the runner in the operator's image.
	RunnerImagePath = "/cwac-runner"
	// RunnerDir is the shared emptyDir the init container copies the runner into.
	RunnerDir = "/runner"
	// ConfigDir is where the scan's ConfigMap is mounted.
	ConfigDir = "/scan"
	// ResultsDir is where the scan's own directory on the results volume is mounted.
	ResultsDir = "/results"
	// BaselineDir is where the baseline scan's CWAC results directory is
	// mounted, read-only, when the scan has a usable spec.baseline.
	BaselineDir = "/baseline"
	// TmpDir is the pod's writable scratch space (HOME and TMPDIR point here:
	// Chrome writes only under them).
	TmpDir = "/tmp"
	// WorkDir is where the runner builds CWAC's writable working tree.
	WorkDir = "/tmp/cwac-work"
	// TerminationLog is where the runner writes its report.
	TerminationLog = "/dev/termination-log"
)

// Sharded scans (spec.shards > 1) run as one Indexed Job: every pod runs
// the runner with RunnerFlags.Shards set and takes its shard's index from
// ShardIndexEnv; each shard's CWAC results go under ShardDir(index) in the
// scan's directory. When the shards have ended, the merge pod runs the
// runner with RunnerFlags.Merge in the operator's own image and writes one
// CWAC results directory, beside the shards, that reads as one run.
const (
	// ShardIndexEnv is the variable the Job controller sets to the pod's
	// index in an Indexed Job.
	ShardIndexEnv = "JOB_COMPLETION_INDEX"
	// ShardsDir is the directory of the scan's directory that holds one
	// directory per shard, named by its index.
	ShardsDir = "shards"
	// MergeContainerName is the merge pod's container; the operator reads
	// its termination report as it reads a one-pod scan's.
	MergeContainerName = "merge-results"
	// MaxShards is the most shards a scan may have (the CRD's bound on spec.shards).
	MaxShards = 64
)

// ShardDir is shard index's directory relative to the scan's directory.
func ShardDir(index int) string { return path.Join(ShardsDir, strconv.Itoa(index)) }

// ShardList is a set of shard indexes as a flag value ("1,3,4").
type ShardList []int

// String renders the list comma-separated, in ascending order.
func (l ShardList) String() string {
	parts := make([]string, len(l))
	for i, n := range l {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

// Set parses a comma-separated list of shard indexes, each in [0, MaxShards).
func (l *ShardList) Set(s string) error {
	var out ShardList
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 || n >= MaxShards {
			return fmt.Errorf("shard index %q: want a whole number from 0 to %d", part, MaxShards-1)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	*l = slices.Compact(out)
	return nil
}

// RunnerPath is the runner as the CWAC container runs it.
var RunnerPath = path.Join(RunnerDir, path.Base(RunnerImagePath))

// ExitRunnerError is the runner's exit code when it could not run CWAC at
// all; any other code is CWAC's own.
const ExitRunnerError = 2

// RunnerFlags are the runner's command-line flags: the Job builder renders
// them with Args and the runner parses them with Bind, so both sides use the
// same names.
type RunnerFlags struct {
	// CWACDir is CWAC's installed tree in its image (read-only is fine).
	CWACDir string
	// ConfigMapDir is where the scan's ConfigMap is mounted: it holds
	// OverridesFile, URLsFile and, when the operator has CWAC's defaults,
	// DefaultsFile.
	ConfigMapDir string
	// ResultsDir is this scan's directory on the results volume.
	ResultsDir string
	// WorkDir is where CWAC's writable working tree is built (emptied first).
	WorkDir string
	// TerminationLog is where the report is written.
	TerminationLog string
	// Python is the interpreter ("" lets the runner choose).
	Python string
	// BaselineDir is the baseline scan's CWAC results directory ("" when the
	// scan has no usable baseline); BaselineName names that scan in the diff.
	BaselineDir, BaselineName string
	// Shards is the scan's number of shards (0 or 1: not sharded). In a
	// scan pod the runner scans only its own shard's sites, the shard
	// ShardIndexEnv names; with Merge it merges the shards' results.
	Shards int
	// Merge makes the runner merge the shards' results instead of running CWAC.
	Merge bool
	// FailedShards are shards whose pods failed; the merge leaves their
	// results out and counts their sites as unscanned.
	FailedShards ShardList
	// Egress are the scan-target policy's lists, the operator's own: the
	// runner's egress proxy (internal/egress) checks every connection of
	// the scan against them.
	Egress urlpolicy.Lists
	// ScanName is the CwacScan's name, which the runner's CI reports
	// (results.sarif, junit.xml) name the scan by; without it they fall
	// back on CWAC's audit name. At most MaxScanNameBytes.
	ScanName string
	// ScanNamespace is the CwacScan's namespace, part of every issue's
	// identity (diff.IssueID): an organisation's issue history is its
	// namespace's, and the CI reports name each issue as the history does.
	// At most MaxScanNamespaceBytes.
	ScanNamespace string
	// Thresholds are the scan's spec.thresholds, each by name and value,
	// which the CI reports carry (cwac.threshold.<name> in JUnit).
	Thresholds ThresholdList
	// CWACImage is the CWAC image the scan runs, the CI reports' tool
	// version ("" when unknown). At most MaxCWACImageBytes.
	CWACImage string
	// With results kept in a bucket, ResultsDir is the pod's own scratch
	// directory: the runner makes sure the bucket takes files before
	// anything runs, fetches what the run reads (the baseline's results
	// into BaselineDir, the shards' for a merge) and uploads ResultsDir
	// when the run has ended, whatever its outcome.
	//
	// ResultsGrant is a scan pod's way in: a file (GrantFile of the scan's
	// Secret, mounted at GrantDir) holding an objectstore.Grant, which
	// stores files under the scan's keys only and fetches its baseline's,
	// without credentials (CWAC's browser runs in that pod).
	ResultsGrant string
	// Bucket, ResultsKey and BaselineKey are the merge pod's way in (it
	// runs no browser): credentials, the scan's directory in the bucket
	// (namespace/name, as on the volume) and the baseline's CWAC results
	// directory ("" for none). A scan pod given credentials refuses them.
	Bucket      objectstore.Config
	ResultsKey  string
	BaselineKey string
}

// The scan's grant to its results bucket (scan pods, with a bucket): a
// Secret of the scan's, mounted read-only at GrantDir.
const (
	GrantDir  = "/results-grant"
	GrantFile = "grant.json"
	// MaxGrantBytes bounds the grant's file (a Secret is at most 1 MiB).
	MaxGrantBytes = 1 << 20
)

// Bounds of the flags that describe the scan to its CI reports: the Job
// builder leaves out what would pass them, and the runner refuses it.
const (
	// MaxScanNameBytes is the longest Kubernetes object name.
	MaxScanNameBytes = 253
	// MaxScanNamespaceBytes is the longest namespace name (a DNS label).
	MaxScanNamespaceBytes = 63
	// MaxCWACImageBytes is spec.image's bound in the CRD.
	MaxCWACImageBytes = 512
	// MaxThresholds leaves room beyond the eight spec.thresholds can set
	// today (four scalars, one maximum per axe impact).
	MaxThresholds = 16
	// MaxThresholdNameBytes and MaxThresholdValueBytes fit a threshold's
	// field path (maxIssuesByImpact.critical) and any int64 or bool.
	MaxThresholdNameBytes  = 64
	MaxThresholdValueBytes = 32
)

// thresholdNameRE is a threshold's field path in spec.thresholds: names
// joined by dots, as they become JUnit property names.
var thresholdNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z0-9]+)*$`)

// Threshold is one of the scan's thresholds, named as spec.thresholds
// spells it (gate.NamedThresholds) and written as it is into the CI reports.
type Threshold struct {
	Name, Value string
}

// ThresholdList is the scan's thresholds as a flag given once per
// threshold: --threshold=maxTotalIssues=10.
type ThresholdList []Threshold

// String renders the list as name=value pairs, comma-separated.
func (l ThresholdList) String() string {
	parts := make([]string, len(l))
	for i, t := range l {
		parts[i] = t.Name + "=" + t.Value
	}
	return strings.Join(parts, ",")
}

// Set adds one name=value threshold, refusing a malformed or repeated name,
// a value that is empty, too long or not printable ASCII, and more than
// MaxThresholds in all.
func (l *ThresholdList) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	switch {
	case !ok:
		return fmt.Errorf("threshold %q: want name=value", textcap.Head(s, MaxThresholdNameBytes))
	case len(*l) >= MaxThresholds:
		return fmt.Errorf("more than %d thresholds", MaxThresholds)
	case len(name) > MaxThresholdNameBytes || !thresholdNameRE.MatchString(name):
		return fmt.Errorf("threshold name %q: want at most %d bytes of letters and digits, dot-separated (maxIssuesByImpact.critical)",
			textcap.Head(name, MaxThresholdNameBytes), MaxThresholdNameBytes)
	case slices.ContainsFunc(*l, func(t Threshold) bool { return t.Name == name }):
		return fmt.Errorf("threshold %s given twice", name)
	case value == "" || len(value) > MaxThresholdValueBytes:
		return fmt.Errorf("threshold %s: its value must be 1 to %d bytes, not %d", name, MaxThresholdValueBytes, len(value))
	case strings.ContainsFunc(value, func(r rune) bool { return r <= ' ' || r > '~' }):
		return fmt.Errorf("threshold %s: its value %q has a character other than printable ASCII", name, value)
	}
	*l = append(*l, Threshold{Name: name, Value: value})
	return nil
}

// boundedString is a string flag that refuses a value longer than max bytes.
type boundedString struct {
	value *string
	max   int
}

func (b boundedString) String() string {
	if b.value == nil { // the flag package's zero value, for its help text
		return ""
	}
	return *b.value
}

func (b boundedString) Set(s string) error {
	if len(s) > b.max {
		return fmt.Errorf("%d bytes, more than the %d allowed", len(s), b.max)
	}
	*b.value = s
	return nil
}

// DefaultRunnerFlags are the paths of the scan pod the Job builder makes.
func DefaultRunnerFlags() RunnerFlags {
	return RunnerFlags{CWACDir: "/cwac", ConfigMapDir: ConfigDir, ResultsDir: ResultsDir, WorkDir: WorkDir, TerminationLog: TerminationLog}
}

// Args renders the flags for the container's command line.
func (f RunnerFlags) Args() []string {
	args := []string{
		"--cwac-dir=" + f.CWACDir,
		"--scan-dir=" + f.ConfigMapDir,
		"--results-dir=" + f.ResultsDir,
		"--work-dir=" + f.WorkDir,
		"--termination-log=" + f.TerminationLog,
	}
	if f.Python != "" {
		args = append(args, "--python="+f.Python)
	}
	if f.BaselineDir != "" {
		args = append(args, "--baseline-dir="+f.BaselineDir, "--baseline-name="+f.BaselineName)
	}
	if f.Shards > 1 {
		args = append(args, "--shards="+strconv.Itoa(f.Shards))
	}
	if f.Merge {
		args = append(args, "--merge")
	}
	if len(f.FailedShards) > 0 {
		args = append(args, "--failed-shards="+f.FailedShards.String())
	}
	if f.ScanName != "" {
		args = append(args, "--scan-name="+f.ScanName)
	}
	if f.ScanNamespace != "" {
		args = append(args, "--scan-namespace="+f.ScanNamespace)
	}
	for _, t := range f.Thresholds {
		args = append(args, "--threshold="+t.Name+"="+t.Value)
	}
	if f.CWACImage != "" {
		args = append(args, "--cwac-image="+f.CWACImage)
	}
	if f.ResultsGrant != "" {
		args = append(args, "--results-grant="+f.ResultsGrant)
	}
	if f.Bucket.Enabled() {
		args = append(args, f.Bucket.Args()...)
		args = append(args, "--results-key="+f.ResultsKey)
		if f.BaselineKey != "" {
			args = append(args, "--baseline-key="+f.BaselineKey)
		}
	}
	return append(args, f.Egress.Args()...)
}

// Bind registers the flags on fs, with the scan pod's paths as defaults.
func (f *RunnerFlags) Bind(fs *flag.FlagSet) {
	d := DefaultRunnerFlags()
	fs.StringVar(&f.CWACDir, "cwac-dir", d.CWACDir, "CWAC's installed tree (read-only is fine)")
	fs.StringVar(&f.ConfigMapDir, "scan-dir", d.ConfigMapDir,
		"directory holding the scan's "+OverridesFile+", "+URLsFile+" and optionally "+DefaultsFile+" (the mounted ConfigMap)")
	fs.StringVar(&f.ResultsDir, "results-dir", d.ResultsDir, "this scan's directory on the results volume; CWAC's results directory is created inside it")
	fs.StringVar(&f.WorkDir, "work-dir", d.WorkDir, "where to build CWAC's writable working tree (emptied first)")
	fs.StringVar(&f.TerminationLog, "termination-log", d.TerminationLog, "where to write the JSON report the operator reads")
	fs.StringVar(&f.Python, "python", "", "Python interpreter (default: <cwac-dir>/.venv/bin/python if present, else python3)")
	fs.StringVar(&f.BaselineDir, "baseline-dir", "", "the baseline scan's CWAC results directory, to compare the results with (diff.json)")
	fs.StringVar(&f.BaselineName, "baseline-name", "", "the baseline scan's name, recorded in the diff")
	fs.IntVar(&f.Shards, "shards", 0, "the scan's number of shards: scan only the shard $"+ShardIndexEnv+" names (or, with --merge, merge them all)")
	fs.BoolVar(&f.Merge, "merge", false, "merge the shards' results under "+ShardsDir+"/ into one CWAC results directory instead of running CWAC")
	fs.Var(&f.FailedShards, "failed-shards", "comma-separated indexes of shards whose pods failed: the merge leaves them out")
	fs.Var(boundedString{&f.ScanName, MaxScanNameBytes}, "scan-name", "the CwacScan's name, which the CI reports name the scan by (default: CWAC's audit name)")
	fs.Var(boundedString{&f.ScanNamespace, MaxScanNamespaceBytes}, "scan-namespace",
		"the CwacScan's namespace, part of each issue's identity in the CI reports as in the issue history")
	fs.Var(&f.Thresholds, "threshold", "one of the scan's spec.thresholds as name=value (maxTotalIssues=10), for the CI reports; repeat for each")
	fs.Var(boundedString{&f.CWACImage, MaxCWACImageBytes}, "cwac-image", "the CWAC image the scan runs, the CI reports' tool version")
	fs.StringVar(&f.ResultsGrant, "results-grant", "", "a scan pod's grant to its results bucket (JSON): store the results there, fetch the baseline from there")
	f.Bucket.Bind(fs)
	fs.StringVar(&f.ResultsKey, "results-key", "", "the merge pod, with a results bucket: the scan's directory in it (namespace/name)")
	fs.StringVar(&f.BaselineKey, "baseline-key", "",
		"the merge pod, with a results bucket: the baseline's CWAC results directory in it, fetched into --baseline-dir")
	f.Egress.Bind(fs) // the scan-target policy's lists, for the egress proxy
}
