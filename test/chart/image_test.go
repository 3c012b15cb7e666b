//go:build integration

package chart

import (
	"os/exec"
	"strings"
	"testing"
)

// TestChartPinsTheImageByDigest: with image.digest set (as a released chart
// has it), the operator, the MCP server and the scan pods' runner all use
// the image by that digest; without it, by tag; a digest that is not one is
// refused at install time by the values' schema.
func TestChartPinsTheImageByDigest(t *testing.T) {
	digest := "sha256:" + strings.Repeat("ab", 32)
	for _, tt := range []struct {
		sets []string
		want string
	}{
		{nil, "cwac-operator:0.1.0"},
		{[]string{"image.repository=registry.example/cwac-operator", "image.tag=v1.2.0", "image.digest=" + digest},
			"registry.example/cwac-operator:v1.2.0@" + digest},
	} {
		objs := render(t, "cwac-system", tt.sets...)
		manager, _ := container(t, objs, "manager")
		mcp, _ := container(t, objs, "mcp-server")
		if manager == nil || mcp == nil {
			t.Fatalf("%v: manager or mcp container missing", tt.sets)
		}
		if manager["image"] != tt.want || mcp["image"] != tt.want {
			t.Errorf("%v: images manager %v, mcp %v; want %s", tt.sets, manager["image"], mcp["image"], tt.want)
		}
		runner := ""
		for _, e := range manager["env"].([]any) {
			if m := e.(map[string]any); m["name"] == "RUNNER_IMAGE" {
				runner, _ = m["value"].(string)
			}
		}
		if runner != tt.want {
			t.Errorf("%v: RUNNER_IMAGE %q, want %s", tt.sets, runner, tt.want)
		}
	}
	for _, bad := range []string{"sha256:abc", "latest", "sha512:" + strings.Repeat("ab", 64), "SHA256:" + strings.Repeat("ab", 32)} {
		out, err := exec.Command(helmBin(t), "template", "cwac", "../../charts/cwac-operator", "--kube-version", "1.37.1",
			"--set", "image.digest="+bad).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "/image/digest") {
			t.Errorf("image.digest=%s: want refused by the schema, got err %v\n%s", bad, err, out)
		}
	}
}
