// Package cwacconfig renders what a scan changes in CWAC's configuration (the
// "overrides" document the operator puts in the scan's ConfigMap) and merges
// it over the defaults that ship in the CWAC image, as the runner does in the
// scan pod. CWAC's own defaults are never copied: they are read at run time.
package cwacconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/a11y-dev/cwac-operator/internal/cwac"
)

// Viewport is a named browser size, as CWAC's viewport_sizes holds them.
type Viewport struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Scan is what a scan sets in CWAC's config; zero values leave the image's
// defaults alone.
type Scan struct {
	AuditName         string
	MaxLinksPerDomain int
	ThreadCount       int
	Plugins           map[string]bool
	ViewportSizes     map[string]Viewport
	// Overrides are free-form CWAC keys, deep-merged last. Owned keys are refused.
	Overrides map[string]json.RawMessage
}

// RenderOverrides returns the overrides document (JSON, keys sorted) for a scan.
func RenderOverrides(s Scan) ([]byte, error) {
	if err := cwac.ValidateAuditName(s.AuditName); err != nil {
		return nil, err
	}
	doc := map[string]any{"audit_name": s.AuditName}
	if s.MaxLinksPerDomain < 0 || s.ThreadCount < 0 {
		return nil, fmt.Errorf("max_links_per_domain and thread_count must not be negative")
	}
	if s.MaxLinksPerDomain > 0 {
		doc["max_links_per_domain"] = s.MaxLinksPerDomain
	}
	if s.ThreadCount > 0 {
		doc["thread_count"] = s.ThreadCount
	}
	if len(s.Plugins) > 0 {
		if err := cwac.ValidatePlugins(slices.Collect(maps.Keys(s.Plugins))); err != nil {
			return nil, err
		}
		plugins := map[string]any{}
		for name, enabled := range s.Plugins {
			plugins[name] = map[string]any{"enabled": enabled}
		}
		doc["audit_plugins"] = plugins
	}
	if len(s.ViewportSizes) > 0 {
		vs := map[string]any{}
		for name, v := range s.ViewportSizes {
			if v.Width <= 0 || v.Height <= 0 {
				return nil, fmt.Errorf("viewport %q: width and height must be positive", name)
			}
			vs[name] = map[string]any{"width": v.Width, "height": v.Height}
		}
		doc["viewport_sizes"] = vs
	}
	for _, key := range sortedKeys(s.Overrides) {
		if slices.Contains(cwac.OwnedConfigKeys, key) {
			return nil, fmt.Errorf("config key %q is owned by the operator and cannot be overridden", key)
		}
		var v any
		if err := json.Unmarshal(s.Overrides[key], &v); err != nil {
			return nil, fmt.Errorf("config override %q: %w", key, err)
		}
		doc = Merge(doc, map[string]any{key: v})
	}
	return marshal(doc)
}

// replacedKeys are merged by replacement rather than deeply: a scan's
// viewport list is the whole list, not an addition to the image's.
var replacedKeys = []string{"viewport_sizes"}

// Merge deep-merges overrides into base (objects merge key by key; anything
// else, and the keys in replacedKeys, is replaced) and returns base.
func Merge(base, overrides map[string]any) map[string]any {
	if base == nil {
		base = map[string]any{}
	}
	for k, ov := range overrides {
		bm, bIsMap := base[k].(map[string]any)
		om, oIsMap := ov.(map[string]any)
		if bIsMap && oIsMap && !slices.Contains(replacedKeys, k) {
			base[k] = Merge(bm, om)
			continue
		}
		base[k] = ov
	}
	return base
}

// Finalize sets what the runner owns in the merged config (where the base
// URLs live) and repairs what the merge can break: the reflow audit must test
// a viewport that exists, so when its viewport_to_test names none of the
// scan's viewports the narrowest is used. It returns notes for the log.
func Finalize(cfg map[string]any) []string {
	cfg["base_urls_visit_path"] = cwac.BaseURLsVisitPath
	cfg["base_urls_nohead_path"] = cwac.BaseURLsNoHead

	viewports, _ := cfg["viewport_sizes"].(map[string]any)
	plugins, _ := cfg["audit_plugins"].(map[string]any)
	reflow, _ := plugins["reflow_audit"].(map[string]any)
	if reflow == nil || len(viewports) == 0 {
		return nil
	}
	want, _ := reflow["viewport_to_test"].(string)
	if _, ok := viewports[want]; ok {
		return nil
	}
	names := slices.Collect(maps.Keys(viewports))
	sort.Slice(names, func(i, j int) bool {
		wi, wj := width(viewports[names[i]]), width(viewports[names[j]])
		if wi != wj {
			return wi < wj
		}
		return names[i] < names[j]
	})
	reflow["viewport_to_test"] = names[0]
	return []string{fmt.Sprintf("reflow_audit.viewport_to_test %q is not among the scan's viewports; testing %q (the narrowest)", want, names[0])}
}

func width(v any) float64 {
	m, _ := v.(map[string]any)
	switch w := m["width"].(type) {
	case float64:
		return w
	case int:
		return float64(w)
	case json.Number:
		f, _ := w.Float64()
		return f
	}
	return 0
}

// Decode parses a JSON config document; CWAC writes its JSON files with a
// UTF-8 byte-order mark, which is skipped.
func Decode(data []byte) (map[string]any, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("decoding CWAC config: %w", err)
	}
	if m == nil {
		return nil, fmt.Errorf("decoding CWAC config: not a JSON object")
	}
	return m, nil
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Encode renders a config document as CWAC reads it (indented JSON).
func Encode(cfg map[string]any) ([]byte, error) { return marshal(cfg) }

func sortedKeys[V any](m map[string]V) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.Sort(keys)
	return keys
}
