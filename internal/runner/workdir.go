package runner

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// prepare builds the working tree from the scan's input: symlinks to
// everything in CWAC's tree but config/, base_urls/ and results/, which are
// real (or point at the results volume), then writes the merged config
// (ConfigFileName) and the base URL CSV. It returns the sites CWAC is given.
//
// In a sharded scan it keeps only the shard's sites, and points CWAC's
// results at the shard's directory (cfg.ResultsDir changes).
func prepare(cfg *Config, in scanInput) ([]cwacconfig.Site, error) {
	if err := cwac.ValidateConfigFileName(ConfigFileName); err != nil {
		return nil, err
	}
	defaultsPath, defaultsData, err := readDefaults(*cfg)
	if err != nil {
		return nil, err
	}
	cfg.Log.Info("CWAC defaults", "from", defaultsPath)
	defaults, err := cwacconfig.Decode(defaultsData)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", defaultsPath, err)
	}
	sites, urlsData := in.sites, in.urlsCSV
	if cfg.Shards > 1 {
		if sites, urlsData, err = takeShard(cfg, sites); err != nil {
			return nil, err
		}
	}

	merged := cwacconfig.Merge(defaults, in.overrides)
	for _, note := range cwacconfig.Finalize(merged) {
		cfg.Log.Info("config adjusted", "note", note)
	}
	configData, err := cwacconfig.Encode(merged)
	if err != nil {
		return nil, err
	}
	if err := buildWorkDir(*cfg); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(cfg.WorkDir, cwac.ConfigDir, ConfigFileName), configData, 0o644); err != nil {
		return nil, fmt.Errorf("writing CWAC config: %w", err)
	}
	visit := filepath.Join(cfg.WorkDir, filepath.FromSlash(cwac.BaseURLsVisitPath))
	if err := os.WriteFile(filepath.Join(visit, BaseURLsFileName), urlsData, 0o644); err != nil {
		return nil, fmt.Errorf("writing base URLs: %w", err)
	}
	return sites, nil
}

// scanInput is what the scan's ConfigMap gives the runner: the overrides
// of CWAC's config (scan.json) with their audit name, and the sites with
// the base URL CSV they were read from (urls.csv).
type scanInput struct {
	overrides *cwacconfig.Object
	auditName string
	sites     []cwacconfig.Site
	urlsCSV   []byte
	decisions scanDecisions
}

// readScanInput reads and checks the scan's ConfigMap, mounted at dir, as a
// scan pod and the merge pod both need it, once: both files are there (see
// checkConfigMap), keys the runner owns are refused, the audit name follows
// CWAC's rule, every base URL parses, and there is one at least; the
// decisions (for the scan's namespace), when it has any, read and checked.
func readScanInput(dir, namespace string) (scanInput, error) {
	var in scanInput
	if err := checkConfigMap(dir); err != nil {
		return in, err
	}
	data, err := os.ReadFile(filepath.Join(dir, scanpod.OverridesFile))
	if err != nil {
		return in, fmt.Errorf("reading the scan's overrides: %w", err)
	}
	if in.overrides, err = cwacconfig.Decode(data); err != nil {
		return in, fmt.Errorf("%s: %w", scanpod.OverridesFile, err)
	}
	for _, k := range cwac.RunnerConfigKeys {
		if _, ok := in.overrides.Get(k); ok {
			return in, fmt.Errorf("%s: key %q is owned by the runner", scanpod.OverridesFile, k)
		}
	}
	nameV, _ := in.overrides.Get(cwac.KeyAuditName)
	in.auditName, _ = nameV.(string)
	if err := cwac.ValidateAuditName(in.auditName); err != nil {
		return in, fmt.Errorf("%s: %w", scanpod.OverridesFile, err)
	}
	if in.urlsCSV, err = os.ReadFile(filepath.Join(dir, scanpod.URLsFile)); err != nil {
		return in, fmt.Errorf("reading the scan's URLs: %w", err)
	}
	if in.sites, err = cwacconfig.ReadBaseURLCSV(in.urlsCSV); err != nil {
		return in, err
	}
	for _, s := range in.sites {
		if _, err := cwacconfig.ParseBaseURL(s.URL); err != nil {
			return in, fmt.Errorf("%s: %w", scanpod.URLsFile, err)
		}
	}
	if len(in.sites) == 0 {
		return in, fmt.Errorf("%s: at least one URL is required", scanpod.URLsFile)
	}
	in.decisions, err = readDecisions(dir, namespace)
	return in, err
}

// checkConfigMap fails fast, with the reason, when the scan's ConfigMap is
// not there: its volume is optional, so a ConfigMap deleted after the Job
// was made gives an empty directory instead of a pod stuck until its
// deadline.
func checkConfigMap(dir string) error {
	for _, name := range []string{scanpod.OverridesFile, scanpod.URLsFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("the scan's ConfigMap is missing (no %s in %s): it was deleted after the scan's Job was created; "+
					"delete the scan and create it again", name, dir)
			}
			return fmt.Errorf("reading the scan's ConfigMap: %w", err)
		}
	}
	return nil
}

// readDefaults reads CWAC's default config: the operator's copy in the scan's
// ConfigMap (scanpod.DefaultsFile) when there is one, else the image's own
// config/config_default.json. CWAC's official image has none (its
// .dockerignore leaves config/ out), so with neither the error says both ways
// to fix it.
func readDefaults(cfg Config) (string, []byte, error) {
	fromScan := filepath.Join(cfg.ConfigMapDir, scanpod.DefaultsFile)
	fromImage := filepath.Join(cfg.CWACDir, cwac.ConfigDir, cwac.DefaultConfigFile)
	for _, p := range []string{fromScan, fromImage} {
		data, err := os.ReadFile(p)
		if err == nil {
			return p, data, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return p, nil, fmt.Errorf("reading CWAC's default config: %w", err)
		}
	}
	return "", nil, fmt.Errorf("CWAC's default config is missing: the scan's ConfigMap has no %s (the operator was given none) "+
		"and the image has no %s (CWAC's own Dockerfile leaves config/ out of its image): %s",
		scanpod.DefaultsFile, fromImage, scanpod.NoDefaultsFix)
}

// NLTKDataDir is where CWAC's language audit keeps nltk's data, relative to
// its working directory: it downloads the data there when it is missing.
// CWAC's image has the directory, empty and owned by uid 1000, for exactly
// that; under the scan pod's read-only root filesystem the runner makes it
// writable in the working tree (links to whatever the image ships, in real
// directories), so the download can land.
const NLTKDataDir = "nltk_data"

// ownedEntries are the parts of CWAC's tree the runner makes itself.
var ownedEntries = []string{cwac.ConfigDir, cwac.BaseURLsDir, cwac.ResultsDir, NLTKDataDir}

func buildWorkDir(cfg Config) error {
	if err := os.RemoveAll(cfg.WorkDir); err != nil {
		return fmt.Errorf("clearing work dir: %w", err)
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return fmt.Errorf("creating work dir: %w", err)
	}
	cwacDir, err := filepath.Abs(cfg.CWACDir)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(cwacDir)
	if err != nil {
		return fmt.Errorf("reading CWAC dir: %w", err)
	}
	for _, e := range entries {
		if slices.Contains(ownedEntries, e.Name()) {
			continue
		}
		if err := os.Symlink(filepath.Join(cwacDir, e.Name()), filepath.Join(cfg.WorkDir, e.Name())); err != nil {
			return fmt.Errorf("linking %s: %w", e.Name(), err)
		}
	}
	// config/: links to the image's own files (defaults, schema) plus ours.
	configDir := filepath.Join(cfg.WorkDir, cwac.ConfigDir)
	if err := os.MkdirAll(configDir, 0o755); err != nil {
		return err
	}
	if imageConfig, err := os.ReadDir(filepath.Join(cwacDir, cwac.ConfigDir)); err == nil {
		for _, e := range imageConfig {
			if e.Name() == ConfigFileName {
				continue
			}
			if err := os.Symlink(filepath.Join(cwacDir, cwac.ConfigDir, e.Name()), filepath.Join(configDir, e.Name())); err != nil {
				return fmt.Errorf("linking config/%s: %w", e.Name(), err)
			}
		}
	}
	if err := mirrorDir(filepath.Join(cwacDir, NLTKDataDir), filepath.Join(cfg.WorkDir, NLTKDataDir)); err != nil {
		return fmt.Errorf("preparing %s: %w", NLTKDataDir, err)
	}
	for _, d := range []string{cwac.BaseURLsVisitPath, cwac.BaseURLsNoHead} {
		if err := os.MkdirAll(filepath.Join(cfg.WorkDir, filepath.FromSlash(d)), 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", d, err)
		}
	}
	resultsDir, err := filepath.Abs(cfg.ResultsDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(resultsDir, 0o755); err != nil {
		return fmt.Errorf("creating results dir %s: %w", resultsDir, err)
	}
	if err := os.Symlink(resultsDir, filepath.Join(cfg.WorkDir, cwac.ResultsDir)); err != nil {
		return fmt.Errorf("linking results: %w", err)
	}
	return nil
}

// mirrorDir rebuilds the tree src as real, writable directories under dst
// whose files are links to src's. Nothing is done when src does not exist.
func mirrorDir(src, dst string) error {
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		return os.Symlink(p, target)
	})
}

// resultDirs lists CWAC results directories for an audit name.
func resultDirs(root, auditName string) map[string]bool {
	out := map[string]bool{}
	entries, err := os.ReadDir(root)
	if err != nil {
		return out
	}
	for _, e := range entries {
		if _, name, ok := cwac.ParseResultsDirName(e.Name()); ok && name == auditName && e.IsDir() {
			out[e.Name()] = true
		}
	}
	return out
}

// newResultDir is the newest results directory for the audit that was not
// there before CWAC ran ("" if none).
func newResultDir(root, auditName string, before map[string]bool) string {
	var fresh []string
	for name := range resultDirs(root, auditName) {
		if !before[name] {
			fresh = append(fresh, name)
		}
	}
	if len(fresh) == 0 {
		return ""
	}
	sort.Strings(fresh) // the timestamp comes first, so names sort by time
	return fresh[len(fresh)-1]
}

// Install copies the running executable to dst (the init container's job:
// the runner reaches the CWAC container through a shared emptyDir).
func Install(dst string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	src, err := os.Open(self)
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }() // read-only: nothing to lose
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, src); err != nil {
		return errors.Join(err, out.Close())
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
