package store

import "testing"

// An engine change is a version both points know and that differs; the
// CWAC image only when both are digests or both are tags.
func TestEngineChanged(t *testing.T) {
	const (
		digestA = "registry.example/cwac@sha256:aaaa"
		digestB = "registry.example/cwac@sha256:bbbb"
	)
	for _, tt := range []struct {
		name string
		a, b EngineVersions
		want bool
	}{
		{"nothing known", EngineVersions{}, EngineVersions{}, false},
		{"same everything", EngineVersions{digestA, "4.10", "130"}, EngineVersions{digestA, "4.10", "130"}, false},
		{"axe-core upgraded", EngineVersions{AxeCore: "4.10"}, EngineVersions{AxeCore: "4.11"}, true},
		{"Chrome upgraded", EngineVersions{Chrome: "130"}, EngineVersions{Chrome: "131"}, true},
		{"one side unknown", EngineVersions{AxeCore: "4.10"}, EngineVersions{}, false},
		{"two digests", EngineVersions{CWACImageDigest: digestA}, EngineVersions{CWACImageDigest: digestB}, true},
		{"two tags", EngineVersions{CWACImageDigest: "cwac:1"}, EngineVersions{CWACImageDigest: "cwac:2"}, true},
		{"a runtime's bare digests", EngineVersions{CWACImageDigest: "sha256:aaaa"}, EngineVersions{CWACImageDigest: "sha256:bbbb"}, true},
		// The pod was gone when the later scan was recorded: its tag is
		// not a change from the earlier digest.
		{"digest then tag", EngineVersions{CWACImageDigest: digestA}, EngineVersions{CWACImageDigest: "cwac:1"}, false},
		{"tag then digest", EngineVersions{CWACImageDigest: "cwac:1"}, EngineVersions{CWACImageDigest: digestA}, false},
	} {
		if got := engineChanged(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: engineChanged = %v, want %v", tt.name, got, tt.want)
		}
	}
}
