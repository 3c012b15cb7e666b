package cwacconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/jsonlimit"
)

// Bounds on a scan's free-form overrides (spec.configOverrides), checked
// before anything decodes or renders them. The CRD cannot check them: the
// API server keeps a free-form value as it is, nested up to 10,000 deep,
// and its validation rules cannot see inside it. Rendering costs grow with
// the square of the nesting depth (each line is indented by its depth), so
// one small object nested thousands deep took the operator hundreds of
// megabytes. CWAC's whole config is two levels deep, a few dozen keys and
// short strings: these leave room for long URL filters and selectors.
const (
	// MaxOverrideKeys is the most keys configOverrides may have (the CRD's maxProperties).
	MaxOverrideKeys = 64
	// MaxOverrideKeyBytes caps the length of one configOverrides key.
	MaxOverrideKeyBytes = 128
	// MaxOverridesBytes caps the keys and JSON values of configOverrides together.
	MaxOverridesBytes = 64 << 10
	// MaxOverrideDepth is how deep arrays and objects may nest in one value.
	MaxOverrideDepth = 8
	// MaxOverrideValues caps the values (object keys included) of all the overrides together.
	MaxOverrideValues = 4096
	// MaxOverrideString caps one string, key or number inside a value.
	MaxOverrideString = 4096
)

// OverridesError says which override broke which rule. Its text names
// the field as the CwacScan spells it, configOverrides.<key>.
type OverridesError struct {
	// Key is the override's key, "" for the overrides as a whole.
	Key string
	Err error
}

func (e *OverridesError) Error() string {
	if e.Key == "" {
		return "configOverrides: " + e.Err.Error()
	}
	return fmt.Sprintf("configOverrides.%s: %v", e.Key, e.Err)
}

func (e *OverridesError) Unwrap() error { return e.Err }

// CheckOverrides checks a scan's overrides against the bounds above, in
// one pass over their bytes that keeps nothing, then refuses the keys the
// operator, the runner or the image owns (cwac.OwnedConfigKeys, and
// cwac.OwnedPluginKeys in any plugin's settings). It is the first thing
// done with a scan's overrides, and RenderOverrides does it again.
func CheckOverrides(overrides map[string]json.RawMessage) error {
	if len(overrides) > MaxOverrideKeys {
		return &OverridesError{Err: fmt.Errorf("%d keys, more than the limit of %d", len(overrides), MaxOverrideKeys)}
	}
	total := 0
	for k, v := range overrides {
		total += len(k) + len(v)
	}
	if total > MaxOverridesBytes {
		return &OverridesError{Err: fmt.Errorf("%d bytes of keys and JSON, more than the limit of %d", total, MaxOverridesBytes)}
	}
	// One counter for every value, so that the values limit holds for them
	// all together; a space between values keeps two numbers apart.
	counter := jsonlimit.New(jsonlimit.Limits{MaxDepth: MaxOverrideDepth, MaxValues: MaxOverrideValues, MaxString: MaxOverrideString})
	keys := sortedKeys(overrides)
	for _, key := range keys {
		if len(key) > MaxOverrideKeyBytes {
			return &OverridesError{Err: fmt.Errorf("a key of %d bytes, more than the limit of %d", len(key), MaxOverrideKeyBytes)}
		}
		if _, err := counter.Write(overrides[key]); err != nil {
			return &OverridesError{Key: key, Err: err}
		}
		_, _ = counter.Write([]byte{' '}) // ends a scalar; counts nothing, so never fails
	}
	for _, key := range keys {
		if err := checkOwned(key, overrides[key]); err != nil {
			return err
		}
	}
	return nil
}

// errOwned is the reason an owned key is refused.
var errOwned = errors.New("set by the operator, the runner or the CWAC image, never by a scan")

// checkOwned refuses an owned key, or an owned key of a plugin's settings
// under audit_plugins. The value is decoded only for audit_plugins, within
// the bounds already checked.
func checkOwned(key string, raw json.RawMessage) error {
	if slices.Contains(cwac.OwnedConfigKeys, key) {
		return &OverridesError{Key: key, Err: errOwned}
	}
	if key != cwac.KeyAuditPlugins {
		return nil
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return &OverridesError{Key: key, Err: err}
	}
	plugins, _ := v.(*Object)
	for _, name := range plugins.Keys() {
		settings := plugins.Object(name)
		for _, owned := range cwac.OwnedPluginKeys {
			if _, ok := settings.Get(owned); ok {
				return &OverridesError{Key: key + "." + name + "." + owned, Err: errOwned}
			}
		}
	}
	return nil
}
