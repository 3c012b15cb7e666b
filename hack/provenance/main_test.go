package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestProvenance(t *testing.T) {
	commit := strings.Repeat("a1", 20)
	good := []string{"--source", "git+https://github.com/owner/cwac-operator", "--ref", "refs/tags/v1.2.0", "--commit", commit,
		"--builder-id", "https://github.com/owner/cwac-operator/actions/runs/1", "--started", "2026-12-01T02:00:00Z",
		"--platform", "linux/amd64", "--platform", "linux/arm64", "--go-flags", "-trimpath"}
	var out bytes.Buffer
	if err := run(good, &out); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	def := got["buildDefinition"].(map[string]any)
	ext := def["externalParameters"].(map[string]any)
	if ext["ref"] != "refs/tags/v1.2.0" || len(ext["platforms"].([]any)) != 2 {
		t.Errorf("externalParameters = %v", ext)
	}
	dep := def["resolvedDependencies"].([]any)[0].(map[string]any)
	if dep["uri"] != "git+https://github.com/owner/cwac-operator@refs/tags/v1.2.0" || dep["digest"].(map[string]any)["gitCommit"] != commit {
		t.Errorf("resolvedDependencies = %v", dep)
	}
	md := got["runDetails"].(map[string]any)["metadata"].(map[string]any)
	if md["startedOn"] != "2026-12-01T02:00:00Z" || md["finishedOn"] == "" {
		t.Errorf("metadata = %v", md)
	}

	// Each input refused says which flag and why.
	with := func(flag, value string) []string {
		out := append([]string(nil), good...)
		for i := range out {
			if out[i] == flag {
				out[i+1] = value
			}
		}
		return out
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{with("--source", "https://github.com/owner/cwac-operator"), "--source"},
		{with("--ref", "v1.2.0"), "--ref"},
		{with("--commit", "abc"), "--commit"},
		{with("--commit", strings.Repeat("A1", 20)), "--commit"},
		{with("--builder-id", ""), "--builder-id is required"},
		{with("--started", "yesterday"), "--started"},
		{with("--started", time.Now().Add(time.Hour).UTC().Format(time.RFC3339)), "after the build finished"},
		{good[:len(good)-6], "--platform is required"},
		{append(append([]string(nil), good...), "extra"), "unexpected arguments"},
	} {
		err := run(tt.args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err %v, want %q", tt.args, err, tt.want)
		}
	}
}
