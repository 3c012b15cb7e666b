// Package cwacconfig renders what a scan changes in CWAC's configuration (the
// "overrides" document the operator puts in the scan's ConfigMap) and merges
// it over CWAC's defaults, as the runner does in the scan pod. CWAC's own
// defaults are never copied into this project: they come, at run time, from
// the CWAC image or from the file the operator was given (see scanpod.DefaultsFile).
// Every document keeps its keys in order (see Object).
package cwacconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/plainjson"
)

// Viewport is a named browser size, as CWAC's viewport_sizes holds them
// (width first, as CWAC writes them).
type Viewport struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Scan is what a scan sets in CWAC's config; zero values leave the defaults alone.
type Scan struct {
	AuditName         string
	MaxLinksPerDomain int
	ThreadCount       int
	Plugins           map[string]bool
	ViewportSizes     map[string]Viewport
	// Overrides are free-form CWAC keys, deep-merged last. Owned keys are refused.
	Overrides map[string]json.RawMessage
}

// RenderOverrides returns the overrides document (indented JSON) for a scan,
// its overrides first checked by CheckOverrides:
// audit_name, max_links_per_domain, thread_count, audit_plugins (in CWAC's
// plugin order), viewport_sizes (narrowest first, each width then height),
// then the free-form overrides by key.
func RenderOverrides(s Scan) ([]byte, error) {
	if err := CheckOverrides(s.Overrides); err != nil {
		return nil, err // before anything decodes them
	}
	if err := cwac.ValidateAuditName(s.AuditName); err != nil {
		return nil, err
	}
	doc := NewObject()
	doc.Set(cwac.KeyAuditName, s.AuditName)
	if s.MaxLinksPerDomain < 0 || s.ThreadCount < 0 {
		return nil, fmt.Errorf("max_links_per_domain and thread_count must not be negative")
	}
	if s.MaxLinksPerDomain > 0 {
		doc.Set(cwac.KeyMaxLinksPerDomain, s.MaxLinksPerDomain)
	}
	if s.ThreadCount > 0 {
		doc.Set(cwac.KeyThreadCount, s.ThreadCount)
	}
	if len(s.Plugins) > 0 {
		if err := cwac.ValidatePlugins(slices.Collect(maps.Keys(s.Plugins))); err != nil {
			return nil, err
		}
		plugins := NewObject()
		for _, name := range cwac.Plugins {
			if enabled, ok := s.Plugins[name]; ok {
				p := NewObject()
				p.Set("enabled", enabled)
				plugins.Set(name, p)
			}
		}
		doc.Set(cwac.KeyAuditPlugins, plugins)
	}
	if len(s.ViewportSizes) > 0 {
		names := slices.Collect(maps.Keys(s.ViewportSizes))
		sort.Slice(names, func(i, j int) bool {
			a, b := s.ViewportSizes[names[i]], s.ViewportSizes[names[j]]
			if a.Width != b.Width {
				return a.Width < b.Width
			}
			return names[i] < names[j]
		})
		vs := NewObject()
		for _, name := range names {
			v := s.ViewportSizes[name]
			if v.Width <= 0 || v.Height <= 0 {
				return nil, fmt.Errorf("viewport %q: width and height must be positive", name)
			}
			size := NewObject()
			size.Set("width", v.Width)
			size.Set("height", v.Height)
			vs.Set(name, size)
		}
		doc.Set(cwac.KeyViewportSizes, vs)
	}
	for _, key := range sortedKeys(s.Overrides) {
		v, err := decodeJSON(s.Overrides[key])
		if err != nil {
			return nil, fmt.Errorf("config override %q: %w", key, err)
		}
		ov := NewObject()
		ov.Set(key, v)
		doc = Merge(doc, ov)
	}
	return Encode(doc)
}

// replacedKeys are merged by replacement rather than deeply: a scan's
// viewport list is the whole list, not an addition to the defaults'.
var replacedKeys = []string{cwac.KeyViewportSizes}

// Merge deep-merges overrides into base and returns base: objects merge key
// by key; anything else, and the keys in replacedKeys, is replaced. A key
// base has keeps its place; a new key goes last (Python's dict.update).
func Merge(base, overrides *Object) *Object {
	if base == nil {
		base = NewObject()
	}
	for _, k := range overrides.Keys() {
		ov, _ := overrides.Get(k)
		bv, _ := base.Get(k)
		bo, bIsObj := bv.(*Object)
		oo, oIsObj := ov.(*Object)
		if bIsObj && oIsObj && !slices.Contains(replacedKeys, k) {
			base.Set(k, Merge(bo, oo))
			continue
		}
		base.Set(k, ov)
	}
	return base
}

// Finalize sets what the runner owns in the merged config (where the base
// URLs live) and repairs what the merge can break: each viewport is written
// width first, as CWAC's own defaults are (CWAC hashes str(viewport) into
// axe-core issue ids), and the reflow audit must test a viewport that exists,
// so when its viewport_to_test names none of the scan's viewports the
// narrowest is used. It returns notes for the log.
func Finalize(cfg *Object) []string {
	cfg.Set(cwac.KeyBaseURLsVisitPath, cwac.BaseURLsVisitPath)
	cfg.Set(cwac.KeyBaseURLsNoHeadPath, cwac.BaseURLsNoHead)

	viewports := cfg.Object(cwac.KeyViewportSizes)
	for _, name := range viewports.Keys() {
		if size := viewports.Object(name); size != nil {
			size.Reorder("width", "height")
		}
	}
	reflow := cfg.Object("audit_plugins").Object("reflow_audit")
	if reflow == nil || viewports.Len() == 0 {
		return nil
	}
	wantV, _ := reflow.Get("viewport_to_test")
	want, _ := wantV.(string)
	if _, ok := viewports.Get(want); ok {
		return nil
	}
	names := viewports.Keys()
	sort.SliceStable(names, func(i, j int) bool {
		wi, wj := width(viewports.Object(names[i])), width(viewports.Object(names[j]))
		if wi != wj {
			return wi < wj
		}
		return names[i] < names[j]
	})
	reflow.Set("viewport_to_test", names[0])
	return []string{fmt.Sprintf("reflow_audit.viewport_to_test %q is not among the scan's viewports; testing %q (the narrowest)", want, names[0])}
}

func width(size *Object) float64 {
	v, _ := size.Get("width")
	switch w := v.(type) {
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

// Encode renders a config document as CWAC reads it: indented JSON, keys in
// the document's order.
func Encode(cfg *Object) ([]byte, error) {
	compact, err := plainjson.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, compact, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.Sort(keys)
	return keys
}
