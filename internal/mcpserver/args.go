package mcpserver

// cwac_scan accepts some arguments in more shapes than the CwacScan spec
// holds: the original CWAC MCP server took plugins as a list and viewports as
// one {width, height}, and clients still send those. The functions here only
// change the shape. Which plugin names, viewport names and sizes are valid is
// the CRD's to say: the scan is dry-run created before it is created for real
// (see scan_validation.go), so no limit is repeated here.

import (
	"errors"
	"fmt"
	"math"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwac"
)

// pluginsArg turns {name: bool} or [name, …] into the spec's map. A list
// means "these on, the rest off", so every other plugin CWAC has is switched
// off explicitly; the image's defaults would otherwise decide. When the list
// names something CWAC does not have, the API server refuses the scan
// anyway; the rest are then left out, so that its refusal names the valid
// plugins instead of counting too many.
func pluginsArg(v any) (map[string]bool, error) {
	switch p := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		out := make(map[string]bool, len(p))
		for name, enabled := range p {
			b, ok := enabled.(bool)
			if !ok {
				return nil, fmt.Errorf("Invalid plugins: %q must be true or false", truncate(name, 64))
			}
			out[name] = b
		}
		return out, nil
	case []any:
		out := map[string]bool{}
		for _, n := range p {
			name, ok := n.(string)
			if !ok {
				return nil, errors.New("Invalid plugins: a list must hold plugin names")
			}
			out[name] = true
		}
		allKnown := true
		for name := range out {
			allKnown = allKnown && cwac.IsPlugin(name)
		}
		if allKnown {
			for _, name := range cwac.Plugins {
				if !out[name] {
					out[name] = false
				}
			}
		}
		return out, nil
	default:
		return nil, errors.New("Invalid plugins: give an object of name to true/false, or a list of names")
	}
}

// viewportsArg turns CWAC's named map, a list of {width, height[, name]} or a
// single {width, height} into the spec's named map. Viewports given without
// a name are named WIDTHxHEIGHT.
func viewportsArg(v any) (map[string]cwacv1alpha1.Viewport, error) {
	out := map[string]cwacv1alpha1.Viewport{}
	switch p := v.(type) {
	case nil:
		return nil, nil
	case []any:
		for i, raw := range p {
			vp, err := viewportArg(fmt.Sprintf("item %d", i), raw)
			if err != nil {
				return nil, err
			}
			name := viewportName(vp)
			if m, _ := raw.(map[string]any); m != nil {
				if n, ok := m["name"].(string); ok && n != "" {
					name = n
				}
			}
			out[name] = vp
		}
	case map[string]any:
		if _, single := p["width"]; single {
			vp, err := viewportArg("the viewport", p)
			if err != nil {
				return nil, err
			}
			out[viewportName(vp)] = vp
			break
		}
		for name, raw := range p {
			vp, err := viewportArg(fmt.Sprintf("%q", truncate(name, 64)), raw)
			if err != nil {
				return nil, err
			}
			out[name] = vp
		}
	default:
		return nil, errors.New("Invalid viewport_sizes: give a map of name to {width, height}, a list of {width, height}, or one {width, height}")
	}
	// An empty map vanishes from the CwacScan (the field is omitempty) and
	// would silently mean the image's defaults: say so instead.
	if len(out) == 0 {
		return nil, errors.New("Invalid viewport_sizes: give at least one viewport, or leave viewport_sizes out for CWAC's defaults")
	}
	return out, nil
}

// viewportArg reads one {width, height}. Sizes must be whole numbers that fit
// the spec's int32; whether they are sensible is the CRD's to say.
func viewportArg(what string, raw any) (cwacv1alpha1.Viewport, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return cwacv1alpha1.Viewport{}, fmt.Errorf("Invalid viewport_sizes: %s must be {width, height}", what)
	}
	w, wok := m["width"].(float64)
	h, hok := m["height"].(float64)
	if !wok || !hok || !isInt32(w) || !isInt32(h) {
		return cwacv1alpha1.Viewport{}, fmt.Errorf("Invalid viewport_sizes: %s needs whole-number width and height", what)
	}
	return cwacv1alpha1.Viewport{Width: int32(w), Height: int32(h)}, nil
}

func viewportName(vp cwacv1alpha1.Viewport) string {
	return fmt.Sprintf("%dx%d", vp.Width, vp.Height)
}

func isInt32(f float64) bool {
	return f == math.Trunc(f) && f >= math.MinInt32 && f <= math.MaxInt32
}

// maxLinksArg fits max_links_per_domain into the spec's int32 (0 means the
// CRD's default). A number too big for it could not be sent as it was given.
func maxLinksArg(n int) (int32, error) {
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, fmt.Errorf("Invalid max_links_per_domain: %d is not a 32-bit whole number", n)
	}
	return int32(n), nil
}
