package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/scanjob"
)

func TestReadDefaultConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := "\xef\xbb\xbf{\"audit_name\": \"x\", \"thread_count\": 8}\n"
	data, err := readDefaultConfig(write("good.json", good))
	if err != nil || string(data) != good {
		t.Errorf("a CWAC config with a byte-order mark: %q, %v (want it byte for byte)", data, err)
	}
	for _, tt := range []struct{ name, content, want string }{
		{"list.json", "[1]", "not a JSON object"},
		{"broken.json", `{"audit_name":`, "decoding CWAC config"},
		{"latin1.json", "{\"a\": \"\xe9\"}", "not UTF-8"},
		{"huge.json", `{"a": "` + strings.Repeat("x", maxDefaultConfigBytes) + `"}`, "more than"},
	} {
		if _, err := readDefaultConfig(write(tt.name, tt.content)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	if _, err := readDefaultConfig(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing file was accepted")
	}
}

// TestScanFlags: the operator's flags as the chart renders them become the
// scan pods' settings: memory per thread, CWAC's defaults read from the file.
func TestScanFlags(t *testing.T) {
	defaults := filepath.Join(t.TempDir(), "config_default.json")
	if err := os.WriteFile(defaults, []byte(`{"audit_name": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	parse := func(args ...string) (scanjob.Options, error) {
		var f scanFlags
		fs := flag.NewFlagSet("manager", flag.ContinueOnError)
		f.bind(fs)
		if err := fs.Parse(args); err != nil {
			return scanjob.Options{}, err
		}
		return f.options()
	}
	o, err := parse()
	if err != nil {
		t.Fatal(err)
	}
	if !o.ScaleMemoryWithThreads || o.DefaultImageLacksDefaults || o.DefaultConfig != nil ||
		o.Resources.Requests.Memory().String() != "512Mi" || o.Resources.Limits.Memory().String() != "1Gi" || o.Resources.Requests.Cpu().String() != "500m" {
		t.Errorf("defaults: %+v", o)
	}
	if o.AllowedImages == nil || len(o.AllowedImages) != 0 {
		t.Errorf("allowed images by default = %#v, want an empty list (--cwac-image only)", o.AllowedImages)
	}
	o2, err := parse("--allowed-images=registry.example/cwac:*, cwac-real:1")
	if err != nil || strings.Join(o2.AllowedImages, " ") != "registry.example/cwac:* cwac-real:1" {
		t.Errorf("--allowed-images: %q, %v", o2.AllowedImages, err)
	}
	o, err = parse("--cwac-image-has-defaults=false", "--cwac-default-config="+defaults, "--scan-memory-per-thread=false",
		`--scan-resources={"limits":{"memory":"1536Mi"},"requests":{"cpu":"250m","memory":"768Mi"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if o.ScaleMemoryWithThreads || !o.DefaultImageLacksDefaults || string(o.DefaultConfig) != `{"audit_name": "x"}` ||
		o.Resources.Limits.Memory().String() != "1536Mi" || o.Resources.Requests.Cpu().String() != "250m" {
		t.Errorf("chart-style flags: %+v", o)
	}
	for _, bad := range [][]string{
		{"--cwac-default-config=" + filepath.Join(t.TempDir(), "missing.json")},
		{"--image-pull-policy=Sometimes"},
		{"--scan-env=NOVALUE"},
		{"--scan-memory-limit=lots"},
		{"--allowed-images=registry.example/*/cwac"},
	} {
		if _, err := parse(bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	bucket := []string{"--results-bucket-endpoint=https://s3.example", "--results-bucket=cwac"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--results-bucket-merge-service-account=cwac-merge"}, "without a results bucket"},
		{append(bucket, "--results-bucket-merge-service-account=default"), `"default" is also the scan pods'`},
		{append(bucket, "--scan-service-account=cwac-scans", "--results-bucket-merge-service-account=cwac-scans"), `"cwac-scans" is also the scan pods'`},
		{append(bucket, "--results-bucket-merge-service-account=Not_A_Name"), `"Not_A_Name" is not a service account name`},
	} {
		if _, err := parse(tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error saying %s", tc.args, err, tc.want)
		}
	}
	o, err = parse(append(bucket, "--scan-service-account=cwac-scans", "--results-bucket-merge-service-account=cwac-merge")...)
	if err != nil || o.Bucket.ServiceAccountName != "cwac-merge" || o.ServiceAccountName != "cwac-scans" {
		t.Errorf("a merge service account of its own: %q, %v", o.Bucket.ServiceAccountName, err)
	}
}
