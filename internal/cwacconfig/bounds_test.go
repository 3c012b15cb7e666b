package cwacconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/jsonlimit"
)

// nested is a value of arrays nested depth deep.
func nested(depth int) json.RawMessage {
	return json.RawMessage(strings.Repeat("[", depth) + strings.Repeat("]", depth))
}

// listOf is a JSON array of n ones: n+1 values.
func listOf(n int) json.RawMessage {
	return json.RawMessage("[" + strings.TrimSuffix(strings.Repeat("1,", n), ",") + "]")
}

// stringOf is a JSON string of n bytes.
func stringOf(n int) json.RawMessage { return json.RawMessage(`"` + strings.Repeat("a", n) + `"`) }

// paddedTo is a JSON array of strings, each within MaxOverrideString, of
// exactly n bytes.
func paddedTo(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString("[")
	for left := n - 2; left > 0; {
		if b.Len() > 1 {
			b.WriteString(",")
			left--
		}
		s := min(left-2, MaxOverrideString)
		b.WriteString(`"` + strings.Repeat("a", s) + `"`)
		left -= s + 2
	}
	b.WriteString("]")
	return json.RawMessage(b.String())
}

func keysOf(n int) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	for i := range n {
		m[fmt.Sprintf("k%02d", i)] = json.RawMessage("1")
	}
	return m
}

// Each bound at its limit (accepted) and one past it (refused, the error
// naming the field and the limit).
func TestCheckOverridesLimits(t *testing.T) {
	one := func(key string, v json.RawMessage) map[string]json.RawMessage {
		return map[string]json.RawMessage{key: v}
	}
	const key = "filter_to_urls"
	if n := len(paddedTo(MaxOverridesBytes - len(key))); n != MaxOverridesBytes-len(key) {
		t.Fatalf("paddedTo made %d bytes", n)
	}
	tests := []struct {
		name      string
		overrides map[string]json.RawMessage
		want      string // "" for accepted
	}{
		{"keys at the limit", keysOf(MaxOverrideKeys), ""},
		{"keys one past", keysOf(MaxOverrideKeys + 1), "configOverrides: 65 keys, more than the limit of 64"},
		{"key length at the limit", one(strings.Repeat("k", MaxOverrideKeyBytes), json.RawMessage("1")), ""},
		{"key length one past", one(strings.Repeat("k", MaxOverrideKeyBytes+1), json.RawMessage("1")),
			"configOverrides: a key of 129 bytes, more than the limit of 128"},
		{"size at the limit", one(key, paddedTo(MaxOverridesBytes-len(key))), ""},
		{"size one past", one(key, paddedTo(MaxOverridesBytes-len(key)+1)),
			"configOverrides: 65537 bytes of keys and JSON, more than the limit of 65536"},
		{"depth at the limit", one(key, nested(MaxOverrideDepth)), ""},
		{"depth one past", one(key, nested(MaxOverrideDepth+1)),
			"configOverrides.filter_to_urls: arrays and objects nest deeper than the limit of 8 levels"},
		{"values at the limit", one(key, listOf(MaxOverrideValues-1)), ""},
		{"values one past", one(key, listOf(MaxOverrideValues)), "configOverrides.filter_to_urls: more values than the limit of 4096"},
		{"values count across keys", map[string]json.RawMessage{"a": listOf(MaxOverrideValues / 2), "b": listOf(MaxOverrideValues/2 - 2)}, ""},
		{"values across keys one past", map[string]json.RawMessage{"a": listOf(MaxOverrideValues / 2), "b": listOf(MaxOverrideValues/2 - 1)},
			"configOverrides.b: more values than the limit of 4096"},
		{"two numbers are two values", map[string]json.RawMessage{"a": json.RawMessage("1"), "b": json.RawMessage("2")}, ""},
		{"string at the limit", one("user_agent", stringOf(MaxOverrideString)), ""},
		{"string one past", one("user_agent", stringOf(MaxOverrideString+1)),
			"configOverrides.user_agent: a string or number longer than the limit of 4096 bytes"},
		{"none", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckOverrides(tt.overrides)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if _, err := RenderOverrides(Scan{AuditName: "a", Overrides: tt.overrides}); err != nil {
					t.Errorf("checked, but RenderOverrides refused: %v", err)
				}
				return
			}
			var oe *OverridesError
			if !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v, want an *OverridesError starting %q", err, tt.want)
			}
			if _, rerr := RenderOverrides(Scan{AuditName: "a", Overrides: tt.overrides}); rerr == nil || rerr.Error() != err.Error() {
				t.Errorf("RenderOverrides = %v, want the check's %v", rerr, err)
			}
		})
	}
}

// The keys the operator, the runner or the image owns are refused, at the
// top and in any plugin's settings; keys of the same name elsewhere are not.
func TestCheckOverridesOwnedKeys(t *testing.T) {
	for _, key := range cwac.OwnedConfigKeys {
		err := CheckOverrides(map[string]json.RawMessage{key: json.RawMessage(`"x"`)})
		if want := "configOverrides." + key + ": set by the operator, the runner or the CWAC image"; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", key, err, want)
		}
	}
	tests := []struct {
		plugins string
		want    string
	}{
		{`{"axe_core_audit":{"enabled":true,"class_name":"os.system"}}`, "configOverrides.audit_plugins.axe_core_audit.class_name: set by"},
		{`{"language_audit":{"enabled":false},"element_audit":{"class_name":"X"}}`, "configOverrides.audit_plugins.element_audit.class_name: set by"},
		{`{"axe_core_audit":{"enabled":true,"best-practice":true}}`, ""},
		{`{"axe_core_audit":{"settings":{"class_name":"deeper is not CWAC's"}}}`, ""},
		{`{"axe_core_audit":3}`, ""},
		{`5`, ""},
		{`{"axe_core_audit":{"enabled":true}`, "configOverrides.audit_plugins: EOF"},
	}
	for _, tt := range tests {
		err := CheckOverrides(map[string]json.RawMessage{"audit_plugins": json.RawMessage(tt.plugins), "class_name": json.RawMessage(`"top level is no plugin's"`)})
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)) {
			t.Errorf("audit_plugins %s: %v, want %q", tt.plugins, err, tt.want)
		}
	}
}

// The object of issue 20: 20 KB of arrays nested 9,900 deep, which the
// API server accepts, is refused by the check alone; the largest overrides
// the check accepts render in little memory.
func TestCheckOverridesIsCheap(t *testing.T) {
	deep := map[string]json.RawMessage{"filter_to_urls": nested(9900)}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := CheckOverrides(deep)
	runtime.ReadMemStats(&after)
	var exceeded *jsonlimit.Exceeded
	if !errors.As(err, &exceeded) || exceeded.Limit != jsonlimit.LimitDepth {
		t.Fatalf("9,900 deep: %v, want the depth limit", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
		t.Errorf("refusing it allocated %d bytes", got)
	}
	// The worst accepted: every value as deep as allowed, as many values
	// as allowed, as many bytes as allowed.
	worst := map[string]json.RawMessage{}
	for i := range 8 {
		worst[fmt.Sprintf("deep%d", i)] = json.RawMessage(strings.Repeat("[", MaxOverrideDepth-1) + strings.TrimSuffix(strings.Repeat("[1],", 60), ",") +
			strings.Repeat("]", MaxOverrideDepth-1))
	}
	// "wide" takes the values left, "long" the bytes left: found by
	// adjusting each to the other until neither changes.
	longBytes := 32 << 10
	for range 10 {
		long := paddedTo(longBytes)
		longValues := jsonlimit.New(jsonlimit.Limits{})
		_, _ = longValues.Write(long)
		worst["long"] = long
		worst["wide"] = listOf(MaxOverrideValues - 1 - 8*(MaxOverrideDepth-1+120) - int(longValues.Values()))
		size := 0
		for k, v := range worst {
			size += len(k) + len(v)
		}
		if size == MaxOverridesBytes {
			break
		}
		longBytes += MaxOverridesBytes - size
	}
	counter := jsonlimit.New(jsonlimit.Limits{})
	size := 0
	for k, v := range worst {
		size += len(k) + len(v)
		_, _ = counter.Write(append(v, ' '))
	}
	if err := CheckOverrides(worst); err != nil || size != MaxOverridesBytes || counter.Values() != MaxOverrideValues {
		t.Fatalf("the worst accepted overrides (%d bytes, %d values) were refused: %v", size, counter.Values(), err)
	}
	runtime.ReadMemStats(&before)
	out, err := RenderOverrides(Scan{AuditName: "a", Overrides: worst})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 || len(out) > 1<<20 {
		t.Errorf("rendering the worst accepted overrides allocated %d bytes for %d bytes of output", got, len(out))
	}
}
