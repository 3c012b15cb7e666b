//go:build integration

package chart

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/a11y-dev/cwac-operator/internal/testutil/files"
)

const chartDir = "../../charts/cwac-operator"

// helmTemplate runs helm template on chart with args and returns its output
// and whether it succeeded.
func helmTemplate(t *testing.T, chart string, args ...string) (string, bool) {
	t.Helper()
	return helmTemplateAs(t, "cwac", chart, args...)
}

// helmTemplateAs is helmTemplate for the release named release.
func helmTemplateAs(t *testing.T, release, chart string, args ...string) (string, bool) {
	t.Helper()
	out, err := exec.Command(helmBin(t), append([]string{"template", release, chart}, args...)...).CombinedOutput()
	return string(out), err == nil
}

// validateArgs render for the API server at kubeconfig (--validate) as a
// release of its own, without the CRDs, so nothing the other tests left on
// the API server (the CRDs, release cwac's objects) is taken for a
// conflict.
func validateArgs(kubeconfig string) []string {
	return []string{"--validate", "--kubeconfig", kubeconfig, "--namespace", "kube-version-check", "--set", "crds.install=false"}
}

// TestChartRendersOfflineForAnyVersion: plain helm template renders for
// Helm's own built-in Kubernetes version (v1.20 in some builds), which says
// nothing about the cluster; the chart renders whatever it is, with or
// without --kube-version.
func TestChartRendersOfflineForAnyVersion(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"--kube-version", "1.20.0"},
		{"--kube-version", "1.29.9"},
		{"--kube-version", "1.37.1"},
		// API versions that are not a cluster's whole list.
		{"--kube-version", "1.20.0", "--api-versions", "monitoring.coreos.com/v1"},
	} {
		if out, ok := helmTemplate(t, chartDir, args...); !ok || !strings.Contains(out, "kind: Deployment") {
			t.Errorf("helm template %v: failed or rendered no Deployment:\n%s", args, out)
		}
	}
}

// TestChartRefusesAnOldCluster: rendered for a cluster (its version with its
// API versions, as Argo CD passes them), a cluster older than 1.30 is
// refused, saying which version it runs; 1.30 and later are not.
func TestChartRefusesAnOldCluster(t *testing.T) {
	const want = "cwac-operator needs Kubernetes 1.30 or later; this cluster runs "
	for _, tt := range []struct {
		version string
		refused bool
	}{
		{"1.20.0", true},
		{"1.29.9", true},
		{"v1.29.6-gke.1326000", true},
		{"1.30.0", false},
		{"v1.30.2-eks-1552ad0", false},
		{"1.37.1", false},
	} {
		out, ok := helmTemplate(t, chartDir, "--kube-version", tt.version, "--api-versions", "apiregistration.k8s.io/v1")
		if tt.refused && (ok || !strings.Contains(out, want+"v1.")) {
			t.Errorf("%s: rendered (%v), want it refused with %q:\n%s", tt.version, ok, want, out)
		}
		if !tt.refused && (!ok || !strings.Contains(out, "kind: Deployment")) {
			t.Errorf("%s: refused, want it rendered:\n%s", tt.version, out)
		}
	}
}

// TestChartChecksTheRealClustersVersion: with --validate, helm renders for
// the API server it reaches (envtest's kube-apiserver, v1.37.1). The chart
// passes; a copy that asks for a later minimum is refused with the
// version the API server reported, so the check sees a real cluster as one.
func TestChartChecksTheRealClustersVersion(t *testing.T) {
	kubeconfig := writeKubeconfig(t)
	if out, ok := helmTemplateAs(t, "kube-version-check", chartDir, validateArgs(kubeconfig)...); !ok {
		t.Fatalf("helm template --validate against the API server failed:\n%s", out)
	}
	raised := filepath.Join(t.TempDir(), "cwac-operator")
	if err := files.CopyDir(chartDir, raised); err != nil {
		t.Fatal(err)
	}
	check := filepath.Join(raised, "templates", "kube-version-check.yaml")
	data, err := os.ReadFile(check)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `$minimum := "1.30.0-0"`) {
		t.Fatalf("%s no longer sets $minimum to 1.30.0-0; update this test", check)
	}
	if err := os.WriteFile(check, []byte(strings.Replace(string(data), `"1.30.0-0"`, `"1.99.0-0"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, ok := helmTemplateAs(t, "kube-version-check", raised, validateArgs(kubeconfig)...)
	if ok || !strings.Contains(out, "this cluster runs v1.37.1") {
		t.Errorf("a minimum of 1.99 against the v1.37.1 API server: rendered (%v), want it refused:\n%s", ok, out)
	}
	// Offline, the same copy renders: the built-in version is not the cluster's.
	if out, ok := helmTemplate(t, raised); !ok {
		t.Errorf("the raised copy offline: refused:\n%s", out)
	}
}

// writeKubeconfig writes a kubeconfig for envtest's API server as its admin.
func writeKubeconfig(t *testing.T) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin"}
	kc.CurrentContext = "envtest"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}
