package cli

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Limits the CRD enforces, checked here first so the error names the flag.
// The CRD states them through kubebuilder markers, which cannot name a Go
// constant, and no Go package holds them, so these are copies:
// TestScanChecksAreTheCRDs holds each to the generated CRD. A URL's form is
// not among them: the API server judges it, and the refusal names the flag
// (scanInvalidError). The audit name's rule is CWAC's (cwac.ValidateAuditName).
const (
	maxURLsPerScan    = 1000 // spec.urls and spec.sites, each
	maxFieldLength    = 256  // characters of a site's organisation or sector
	minScanTimeout    = time.Minute
	maxScanTimeout    = 24 * time.Hour
	maxThreads        = 16
	maxLinksPerDomain = 100000
)

// The plugin's own bound on --urls-file, and names it gives.
const (
	maxURLsFileBytes = 4 << 20
	defaultGenerate  = "cwac-"
	colOrganisation  = "organisation"
)

// The CRD's patterns (api/v1alpha1), repeated so that bad input is refused
// with the flag's name before anything is sent; TestScanChecksAreTheCRDs
// holds them to the generated CRD.
var (
	timeoutRE = regexp.MustCompile(`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`)
	// A site's organisation or sector: no leading = + - @ (a spreadsheet
	// formula once it reaches CWAC's CSVs), none after a semicolon, no tabs
	// or line breaks.
	csvSafeRE   = regexp.MustCompile(`^[^=+\-@\t\r\n][^\t\r\n]*$`)
	afterSemiRE = regexp.MustCompile(`;[ ]*[=+@-]`)
)

var (
	impactNames   = results.Impacts()
	changeNames   = []string{"new", "fixed", "unchanged", "unstable"}
	outputFormats = []string{outTable, outJSON, outYAML}
)

// ScanFlags are `kubectl cwac scan`'s flags describing the scan.
type ScanFlags struct {
	Name              string
	Namespace         string
	URLs              []string
	Sites             []string // "url,organisation,sector"
	URLsFile          string
	AuditName         string
	Timeout           string
	Threads           int32 // 0: the CRD's default
	MaxLinksPerDomain int32 // 0: the CRD's default
	Baseline          string
	// AllowHTTP lets CWAC scan http:// sites (CWAC's only_allow_https: false,
	// through spec.configOverrides); CWAC's default skips them.
	AllowHTTP bool
	// Thresholds; nil when the flag was not given.
	MaxCritical *int64
	MaxTotal    *int64
	MaxNew      *int64
	// RequireComplete is the threshold spec.thresholds.requireComplete: the
	// gate fails unless every organisation was scanned completely.
	RequireComplete bool
	// Shards splits the sites into this many shards (spec.shards); nil when
	// --shards was not given.
	Shards *int32
	// ShardFailurePolicy is Fail or Partial (spec.shardFailurePolicy); ""
	// leaves the CRD's default (Fail).
	ShardFailurePolicy string
}

// BuildScan turns the flags into a CwacScan, refusing bad input with the
// flag's name.
func BuildScan(f ScanFlags) (*cwacv1alpha1.CwacScan, error) {
	scan := &cwacv1alpha1.CwacScan{
		TypeMeta:   metav1.TypeMeta{APIVersion: cwacv1alpha1.GroupVersion.String(), Kind: "CwacScan"},
		ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace},
	}
	if f.Name != "" {
		if errs := validation.IsDNS1123Subdomain(f.Name); len(errs) > 0 {
			return nil, fmt.Errorf("--name %q: %s", f.Name, strings.Join(errs, "; "))
		}
		scan.Name = f.Name
	} else {
		scan.GenerateName = defaultGenerate
	}
	scan.Spec.URLs = append(scan.Spec.URLs, f.URLs...)
	for _, s := range f.Sites {
		site, err := parseSite(s)
		if err != nil {
			return nil, fmt.Errorf("--site %q: %w", textcap.Head(s, 120), err)
		}
		scan.Spec.Sites = append(scan.Spec.Sites, site)
	}
	if f.URLsFile != "" {
		urls, sites, err := readURLsFile(f.URLsFile)
		if err != nil {
			return nil, fmt.Errorf("--urls-file: %w", err)
		}
		scan.Spec.URLs = append(scan.Spec.URLs, urls...)
		scan.Spec.Sites = append(scan.Spec.Sites, sites...)
	}
	if n := len(scan.Spec.URLs) + len(scan.Spec.Sites); n == 0 {
		return nil, errors.New("no URL to scan: give --url, --site or --urls-file")
	} else if len(scan.Spec.URLs) > maxURLsPerScan || len(scan.Spec.Sites) > maxURLsPerScan {
		return nil, fmt.Errorf("too many URLs: %d plain URLs and %d sites (at most %d of each)", len(scan.Spec.URLs), len(scan.Spec.Sites), maxURLsPerScan)
	}
	if f.AuditName != "" {
		if err := cwac.ValidateAuditName(f.AuditName); err != nil {
			return nil, fmt.Errorf("--audit-name: %w", err)
		}
	}
	scan.Spec.AuditName = f.AuditName
	if f.Timeout != "" {
		if err := checkTimeout(f.Timeout); err != nil {
			return nil, fmt.Errorf("--timeout %q: %w", textcap.Head(f.Timeout, 40), err)
		}
		scan.Spec.Timeout = f.Timeout
	}
	if f.Threads != 0 && (f.Threads < 1 || f.Threads > maxThreads) {
		return nil, fmt.Errorf("--threads %d: must be 1-%d", f.Threads, maxThreads)
	}
	scan.Spec.ThreadCount = f.Threads
	if f.MaxLinksPerDomain != 0 && (f.MaxLinksPerDomain < 1 || f.MaxLinksPerDomain > maxLinksPerDomain) {
		return nil, fmt.Errorf("--max-links-per-domain %d: must be 1-%d", f.MaxLinksPerDomain, maxLinksPerDomain)
	}
	scan.Spec.MaxLinksPerDomain = f.MaxLinksPerDomain
	if f.Baseline != "" {
		if errs := validation.IsDNS1123Subdomain(f.Baseline); len(errs) > 0 {
			return nil, fmt.Errorf("--baseline %q: %s", textcap.Head(f.Baseline, 80), strings.Join(errs, "; "))
		}
		if f.Baseline == f.Name {
			return nil, fmt.Errorf("--baseline %q names the scan itself: a baseline is an earlier scan", f.Baseline)
		}
		scan.Spec.Baseline = f.Baseline
	}
	if f.AllowHTTP {
		scan.Spec.ConfigOverrides = map[string]apiextensionsv1.JSON{"only_allow_https": {Raw: []byte("false")}}
	}
	th, err := thresholds(f)
	if err != nil {
		return nil, err
	}
	scan.Spec.Thresholds = th
	if err := setShards(&scan.Spec, f); err != nil {
		return nil, err
	}
	return scan, nil
}

// setShards checks --shards and --shard-failure-policy against the CRD's
// rules (1 to scanpod.MaxShards, at most one shard per site; the policy's
// names) and sets them.
func setShards(spec *cwacv1alpha1.CwacScanSpec, f ScanFlags) error {
	if f.Shards != nil {
		n, sites := *f.Shards, len(spec.URLs)+len(spec.Sites)
		if n < 1 || n > scanpod.MaxShards {
			return fmt.Errorf("--shards %d: must be 1-%d", n, scanpod.MaxShards)
		}
		if int(n) > sites {
			return fmt.Errorf("--shards %d: more shards than the %d sites to scan (each shard scans at least one site)", n, sites)
		}
		spec.Shards = n
	}
	switch p := cwacv1alpha1.ShardFailurePolicy(f.ShardFailurePolicy); p {
	case "", cwacv1alpha1.ShardFailurePolicyFail, cwacv1alpha1.ShardFailurePolicyPartial:
		spec.ShardFailurePolicy = p
	default:
		return fmt.Errorf("--shard-failure-policy %q: must be %s or %s", textcap.Head(f.ShardFailurePolicy, 40),
			cwacv1alpha1.ShardFailurePolicyFail, cwacv1alpha1.ShardFailurePolicyPartial)
	}
	return nil
}

func thresholds(f ScanFlags) (*cwacv1alpha1.Thresholds, error) {
	for _, t := range []struct {
		flag string
		v    *int64
	}{{"--max-critical", f.MaxCritical}, {"--max-total", f.MaxTotal}, {"--max-new", f.MaxNew}} {
		if t.v != nil && *t.v < 0 {
			return nil, fmt.Errorf("%s %d: a maximum may not be negative", t.flag, *t.v)
		}
	}
	if f.MaxNew != nil && f.Baseline == "" {
		return nil, errors.New("--max-new needs --baseline: new issues are counted against a baseline scan")
	}
	if f.MaxCritical == nil && f.MaxTotal == nil && f.MaxNew == nil && !f.RequireComplete {
		return nil, nil
	}
	th := &cwacv1alpha1.Thresholds{MaxTotalIssues: f.MaxTotal, MaxNewIssues: f.MaxNew, RequireComplete: f.RequireComplete}
	if f.MaxCritical != nil {
		th.MaxIssuesByImpact = map[string]int64{results.ImpactCritical: *f.MaxCritical}
	}
	return th, nil
}

func checkTimeout(s string) error {
	if !timeoutRE.MatchString(s) {
		return errors.New("must be a duration such as 30m or 1h30m")
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	if d < minScanTimeout || d > maxScanTimeout {
		return errors.New("must be between 1m and 24h")
	}
	return nil
}

// parseSite reads "url,organisation,sector" (a CSV record, so an
// organisation with a comma can be quoted); organisation and sector may be
// left out.
func parseSite(s string) (cwacv1alpha1.Site, error) {
	r := csv.NewReader(strings.NewReader(s))
	r.FieldsPerRecord = -1
	rec, err := r.Read()
	if err != nil {
		return cwacv1alpha1.Site{}, fmt.Errorf("not url,organisation,sector: %w", err)
	}
	if len(rec) > 3 {
		return cwacv1alpha1.Site{}, fmt.Errorf("%d fields: want url,organisation,sector (quote an organisation that has a comma)", len(rec))
	}
	rec = append(rec, "", "")
	return newSite(strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1]), strings.TrimSpace(rec[2]))
}

func newSite(u, org, sector string) (cwacv1alpha1.Site, error) {
	for _, f := range []struct{ name, v string }{{colOrganisation, org}, {"sector", sector}} {
		if f.v == "" {
			continue
		}
		// The CRD's maxLength counts characters, not bytes.
		if utf8.RuneCountInString(f.v) > maxFieldLength {
			return cwacv1alpha1.Site{}, fmt.Errorf("%s is longer than %d characters", f.name, maxFieldLength)
		}
		if !csvSafeRE.MatchString(f.v) || afterSemiRE.MatchString(f.v) {
			return cwacv1alpha1.Site{}, fmt.Errorf("%s %q may not start with = + - @ (nor have one after a semicolon), "+
				"nor hold tabs or line breaks: spreadsheets would read a formula", f.name, textcap.Head(f.v, 80))
		}
	}
	return cwacv1alpha1.Site{URL: u, Organisation: org, Sector: sector}, nil
}

// readURLsFile reads a file of URLs: a CSV with a header naming a url column
// (CWAC's own base_urls format: organisation,url,sector) gives sites; any
// other file is one URL per line (blank lines and # comments skipped).
func readURLsFile(path string) ([]string, []cwacv1alpha1.Site, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, maxURLsFileBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxURLsFileBytes {
		return nil, nil, fmt.Errorf("%s is larger than %d bytes", path, maxURLsFileBytes)
	}
	urls, sites, err := parseURLsList(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return urls, sites, nil
}

// parseURLsList is readURLsFile's parser. A line ends at "\n", "\r\n" or a
// lone "\r" (files saved by old Mac editors), so no URL it returns holds a
// line break.
func parseURLsList(data []byte) ([]string, []cwacv1alpha1.Site, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	data = bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
	firstLine, _, _ := bytes.Cut(data, []byte("\n"))
	header := strings.Split(strings.ToLower(strings.TrimSpace(string(firstLine))), ",")
	for i := range header {
		header[i] = strings.Trim(strings.TrimSpace(header[i]), `"`)
	}
	if slices.Contains(header, "url") {
		sites, err := parseSitesCSV(data)
		return nil, sites, err
	}
	var urls []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxURLsFileBytes)
	for sc.Scan() {
		u := strings.TrimSpace(sc.Text())
		if u == "" || strings.HasPrefix(u, "#") {
			continue
		}
		if len(urls) == maxURLsPerScan {
			return nil, nil, fmt.Errorf("more than %d URLs", maxURLsPerScan)
		}
		urls = append(urls, u)
	}
	return urls, nil, sc.Err()
}

func parseSitesCSV(data []byte) ([]cwacv1alpha1.Site, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = 0
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err != nil {
		return nil, err
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	cell := func(rec []string, name string) string {
		if i, ok := col[name]; ok {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var sites []cwacv1alpha1.Site
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return sites, nil
		}
		if err != nil {
			return nil, err
		}
		line, _ := r.FieldPos(0)
		site, err := newSite(cell(rec, "url"), cell(rec, colOrganisation), cell(rec, "sector"))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if len(sites) == maxURLsPerScan {
			return nil, fmt.Errorf("more than %d sites", maxURLsPerScan)
		}
		sites = append(sites, site)
	}
}
