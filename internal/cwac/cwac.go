// Package cwac holds facts about real CWAC (the Centralised Web Accessibility
// Checker) that the operator, the runner and the MCP server share: its plugin
// names, its naming rules and the layout of its working tree. It knows nothing
// of Kubernetes.
package cwac

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Plugins are the audit plugins real CWAC ships, in its default config's order
// (audit_plugins.<name> in config_default.json).
var Plugins = []string{
	"axe_core_audit",
	"language_audit",
	"reflow_audit",
	"title_audit",
	"focus_indicator_audit",
	"screenshot_audit",
	"element_audit",
}

// IsPlugin reports whether name is a real CWAC plugin.
func IsPlugin(name string) bool { return slices.Contains(Plugins, name) }

// ValidatePlugins refuses unknown plugin names (such as the older specs'
// html_validation, crawl_audit and seo_audit) with a message listing the real ones.
func ValidatePlugins(names []string) error {
	var unknown []string
	for _, n := range names {
		if !IsPlugin(n) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return fmt.Errorf("unknown plugin(s) %s; valid plugins are: %s",
		strings.Join(unknown, ", "), strings.Join(Plugins, ", "))
}

// MaxAuditNameLength is CWAC's limit on audit_name.
const MaxAuditNameLength = 50

var auditNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,50}$`)

// ValidateAuditName applies CWAC's rule for audit_name: 1-50 characters of
// A-Z a-z 0-9 _ . - (it becomes part of a directory name).
func ValidateAuditName(name string) error {
	if !auditNameRE.MatchString(name) {
		return fmt.Errorf("invalid audit name %q: must be 1-%d characters of A-Z a-z 0-9 _ . -", name, MaxAuditNameLength)
	}
	if name == "." || name == ".." {
		return fmt.Errorf("invalid audit name %q: must not be a relative directory name", name)
	}
	return nil
}

// AuditNameFrom derives a valid audit name from a Kubernetes object name
// (lower-case alphanumerics, '-' and '.'), cut to CWAC's 50-character limit.
func AuditNameFrom(objectName string) string {
	var b strings.Builder
	for _, r := range objectName {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
		if b.Len() == MaxAuditNameLength {
			break
		}
	}
	name := strings.Trim(b.String(), ".")
	if name == "" {
		return "scan"
	}
	return name
}

var configFileRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)

// ValidateConfigFileName applies CWAC's rule for the config file argument: a
// bare file name in ./config/ matching ^[a-zA-Z0-9_.-]+$.
func ValidateConfigFileName(name string) error {
	if !configFileRE.MatchString(name) || name == "." || name == ".." {
		return fmt.Errorf("invalid CWAC config file name %q: must match ^[a-zA-Z0-9_.-]+$", name)
	}
	return nil
}

// Layout of CWAC's working tree (CWAC resolves these relative to its cwd).
const (
	ConfigDir         = "config"
	DefaultConfigFile = "config_default.json"
	BaseURLsDir       = "base_urls"
	BaseURLsVisitPath = "./base_urls/visit/"
	BaseURLsNoHead    = "./base_urls/nohead/"
	ResultsDir        = "results"
	EntryPoint        = "cwac.py"
)

// CWAC's config keys the operator writes itself: the first four from the
// CwacScan's spec fields into the scan's overrides, the base URL paths by the
// runner into the merged config.
const (
	KeyAuditName          = "audit_name"
	KeyMaxLinksPerDomain  = "max_links_per_domain"
	KeyThreadCount        = "thread_count"
	KeyViewportSizes      = "viewport_sizes"
	KeyBaseURLsVisitPath  = "base_urls_visit_path"
	KeyBaseURLsNoHeadPath = "base_urls_nohead_path"
)

// RunnerConfigKeys are the keys only the runner sets (where it puts the
// base URLs): the scan's overrides, written by the operator, never hold them.
var RunnerConfigKeys = []string{KeyBaseURLsVisitPath, KeyBaseURLsNoHeadPath}

// CWAC's keys that choose the browser it drives and the programs it runs
// for it. They belong to the CWAC image (its defaults, or the operator's
// copy of them), never to a scan: a path would let a scan make CWAC run
// any program in the image as its browser or driver.
const (
	KeyBrowser              = "browser"
	KeyChromeBinaryLocation = "chrome_binary_location"
	KeyChromeDriverLocation = "chrome_driver_location"
)

// ImageConfigKeys are the keys that belong to the CWAC image.
var ImageConfigKeys = []string{KeyBrowser, KeyChromeBinaryLocation, KeyChromeDriverLocation}

// OwnedConfigKeys are the keys set from CwacScan spec fields, by the
// runner or by the CWAC image, never through configOverrides (the CRD's
// description of configOverrides names each; a test in api/v1alpha1 holds
// it to this list).
var OwnedConfigKeys = slices.Concat([]string{KeyAuditName, KeyMaxLinksPerDomain, KeyThreadCount, KeyViewportSizes}, RunnerConfigKeys, ImageConfigKeys)

// KeyAuditPlugins holds each audit plugin's settings, by plugin name.
const KeyAuditPlugins = "audit_plugins"

// KeyPluginClassName is the Python class CWAC loads for an audit plugin.
const KeyPluginClassName = "class_name"

// OwnedPluginKeys are the keys of an audit plugin's settings
// (audit_plugins.<plugin>.<key>) a scan may not set: the class CWAC loads
// for a plugin is the image's, or a scan could make CWAC load any class it
// can import.
var OwnedPluginKeys = []string{KeyPluginClassName}

// resultsDirTimeLayout is the time in CWAC's results directory names, in
// Go's layout notation.
const resultsDirTimeLayout = "2006-01-02_15-04-05"

// ResultsDirName is the name CWAC gives a results directory made at t for
// an audit: <YYYY-MM-DD_HH-MM-SS>_<auditName>, t as it is (CWAC uses its
// clock's local time; in a pod that is UTC).
func ResultsDirName(t time.Time, auditName string) string {
	return t.Format(resultsDirTimeLayout) + "_" + auditName
}

// ResultsDirTime is the time in a results directory name's timestamp (as
// ParseResultsDirName returns it), read in loc: CWAC writes its clock's
// local time with no zone.
func ResultsDirTime(timestamp string, loc *time.Location) (time.Time, error) {
	return time.ParseInLocation(resultsDirTimeLayout, timestamp, loc)
}

// resultsDirRE matches CWAC's results directory name: <YYYY-MM-DD_HH-MM-SS>_<audit_name>.
var resultsDirRE = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2})_([A-Za-z0-9_.-]{1,50})$`)

// ParseResultsDirName splits a CWAC results directory name into its timestamp
// and audit name; ok is false for names CWAC would not have made.
func ParseResultsDirName(name string) (timestamp, auditName string, ok bool) {
	m := resultsDirRE.FindStringSubmatch(name)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}
