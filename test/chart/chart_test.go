// Package chart validates the Helm chart and the kustomize install against a
// real API server: rendered with several sets of values, every object is
// applied with a server-side dry run (so the API server validates it), and the
// chart's RBAC is checked to be exactly what the code's RBAC markers ask for
// and enough to run a scan end to end as the chart's service account.
package chart

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/yaml"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

var (
	cfg    *rest.Config
	admin  client.Client
	scheme = runtime.NewScheme()
	assets string
)

func TestMain(m *testing.M) {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cwacv1alpha1.AddToScheme(scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme))
	logf.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	assets = os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		assets, _ = filepath.Abs("../../bin/k8s/1.37.1-linux-amd64")
	}
	// No CRD preinstalled: the chart installs it.
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	var err error
	if cfg, err = env.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "starting envtest (run 'make envtest-assets'):", err)
		os.Exit(1)
	}
	if admin, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = env.Stop()
	os.Exit(code)
}

func helmBin(t *testing.T) string {
	t.Helper()
	if h := os.Getenv("HELM"); h != "" {
		return h
	}
	h, _ := filepath.Abs("../../bin/helm")
	if _, err := os.Stat(h); err != nil {
		t.Fatalf("helm not found: run hack/tools.sh helm (or set HELM): %v", err)
	}
	return h
}

func run(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// render runs helm template with --set pairs and decodes the objects.
func render(t *testing.T, namespace string, sets ...string) []*unstructured.Unstructured {
	t.Helper()
	args := []string{"template", "cwac", "../../charts/cwac-operator", "--namespace", namespace, "--kube-version", "1.37.1"}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	return decode(t, run(t, helmBin(t), args...))
}

func decode(t *testing.T, data []byte) []*unstructured.Unstructured {
	t.Helper()
	var objs []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u := &unstructured.Unstructured{}
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("decoding rendered YAML: %v", err)
		}
		if len(u.Object) > 0 {
			objs = append(objs, u)
		}
	}
	return objs
}

func kinds(objs []*unstructured.Unstructured) map[string][]string {
	out := map[string][]string{}
	for _, o := range objs {
		out[o.GetKind()] = append(out[o.GetKind()], o.GetNamespace()+"/"+o.GetName())
	}
	return out
}

func find(objs []*unstructured.Unstructured, kind, nameSuffix string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && strings.HasSuffix(o.GetName(), nameSuffix) {
			return o
		}
	}
	return nil
}

// applyDryRun ensures namespaces and the CRD exist for real, then submits
// every object with a server-side dry run, so the API server validates each.
func applyDryRun(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	for _, o := range objs {
		if ns := o.GetNamespace(); ns != "" {
			ensureNamespace(t, ns)
		}
		if o.GetKind() == "CustomResourceDefinition" {
			ensureCRD(t, o)
		}
	}
	for _, o := range objs {
		obj := o.DeepCopy()
		err := admin.Patch(ctx, obj, client.Apply, client.FieldOwner("chart-test"), client.ForceOwnership, client.DryRunAll)
		if err != nil {
			t.Errorf("server-side dry run of %s %s/%s refused: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
	}
}

func ensureNamespace(t *testing.T, ns string) {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("Namespace")
	u.SetName(ns)
	if err := admin.Patch(context.Background(), u, client.Apply, client.FieldOwner("chart-test")); err != nil {
		t.Fatalf("namespace %s: %v", ns, err)
	}
}

func ensureCRD(t *testing.T, o *unstructured.Unstructured) {
	t.Helper()
	obj := o.DeepCopy()
	if err := admin.Patch(context.Background(), obj, client.Apply, client.FieldOwner("chart-test"), client.ForceOwnership); err != nil {
		t.Fatalf("installing the chart's CRD: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := admin.Get(context.Background(), client.ObjectKey{Name: o.GetName()}, crd); err == nil {
			for _, c := range crd.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					return
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("CRD %s never became established", o.GetName())
}

func sampleScanAccepted(t *testing.T, ns string) {
	t.Helper()
	data, err := os.ReadFile("../../config/samples/cwac_v1alpha1_cwacscan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &u.Object); err != nil {
		t.Fatal(err)
	}
	u.SetNamespace(ns)
	if err := admin.Create(context.Background(), u, client.DryRunAll); err != nil {
		t.Errorf("the sample CwacScan was refused: %v", err)
	}
}

func args(t *testing.T, objs []*unstructured.Unstructured, container string) []string {
	t.Helper()
	dep := find(objs, "Deployment", "")
	if dep == nil {
		t.Fatal("no Deployment rendered")
	}
	cs, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
	for _, c := range cs {
		m := c.(map[string]any)
		if m["name"] == container {
			var out []string
			for _, a := range m["args"].([]any) {
				out = append(out, a.(string))
			}
			return out
		}
	}
	return nil
}

func hasArg(list []string, want string) bool {
	for _, a := range list {
		if a == want {
			return true
		}
	}
	return false
}

func TestHelmLint(t *testing.T) {
	out := run(t, helmBin(t), "lint", "../../charts/cwac-operator", "--kube-version", "1.37.1", "--strict")
	if !strings.Contains(string(out), "0 chart(s) failed") {
		t.Errorf("helm lint: %s", out)
	}
}

func TestChartRendersAndAppliesWithValues(t *testing.T) {
	tests := []struct {
		name  string
		ns    string
		sets  []string
		check func(t *testing.T, objs []*unstructured.Unstructured)
	}{
		{"defaults", "cwac-system", nil, func(t *testing.T, objs []*unstructured.Unstructured) {
			k := kinds(objs)
			for _, kind := range []string{"CustomResourceDefinition", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Service", "PersistentVolumeClaim", "Deployment"} {
				if len(k[kind]) == 0 {
					t.Errorf("no %s rendered", kind)
				}
			}
			if len(k["Service"]) != 2 || args(t, objs, "mcp-server") == nil {
				t.Errorf("want the MCP sidecar and two Services: %v", k["Service"])
			}
			if hasArg(args(t, objs, "manager"), "--leader-elect") {
				t.Error("leader election with one replica")
			}
			if find(objs, "NetworkPolicy", "-scans") == nil || find(objs, "ClusterRoleBinding", "-mcp-auth-delegator") == nil {
				t.Errorf("default install lacks the scan NetworkPolicy or the sidecar's auth delegation: %v", k)
			}
			mcpArgs := args(t, objs, "mcp-server")
			if !hasArg(mcpArgs, "--auth=kubernetes") || !hasArg(mcpArgs, "--url-resolve=true") || !hasArg(args(t, objs, "manager"), "--url-check-redirects=true") {
				t.Errorf("sidecar args %v", mcpArgs)
			}
		}},
		{"namespaced", "cwac-ns", []string{"rbac.scope=namespaced", "rbac.watchNamespaces={team-a,team-b}"}, func(t *testing.T, objs []*unstructured.Unstructured) {
			k := kinds(objs)
			// The only cluster-scoped grant left is the sidecar's token and
			// permission reviews (system:auth-delegator), which are cluster-scoped APIs.
			if len(k["ClusterRole"]) != 0 || len(k["ClusterRoleBinding"]) != 1 || find(objs, "ClusterRoleBinding", "-mcp-auth-delegator") == nil {
				t.Errorf("cluster-wide RBAC in namespaced mode: %v", k)
			}
			if find(objs, "Role", "-manager") == nil || !hasArg(args(t, objs, "manager"), "--watch-namespaces=team-a,team-b") {
				t.Errorf("namespaced roles or flag missing: %v %v", k["Role"], args(t, objs, "manager"))
			}
			want := []string{"team-a/cwac-cwac-operator-manager", "team-b/cwac-cwac-operator-manager", "cwac-ns/cwac-cwac-operator-mcp-server"}
			if diff := cmp.Diff(want, k["Role"]); diff != "" {
				t.Errorf("roles (-want +got):\n%s", diff)
			}
		}},
		{"sidecar off", "cwac-nomcp", []string{"mcp.enabled=false"}, func(t *testing.T, objs []*unstructured.Unstructured) {
			if args(t, objs, "mcp-server") != nil || find(objs, "Service", "-mcp") != nil || find(objs, "Role", "-mcp-server") != nil {
				t.Error("MCP objects rendered with mcp.enabled=false")
			}
		}},
		{"existing claim", "cwac-claim", []string{"results.existingClaim=shared-results"}, func(t *testing.T, objs []*unstructured.Unstructured) {
			if find(objs, "PersistentVolumeClaim", "") != nil || !hasArg(args(t, objs, "manager"), "--results-pvc=shared-results") {
				t.Errorf("existing claim not used: %v", args(t, objs, "manager"))
			}
		}},
		{"two replicas", "cwac-ha", []string{"replicaCount=2"}, func(t *testing.T, objs []*unstructured.Unstructured) {
			if !hasArg(args(t, objs, "manager"), "--leader-elect") || find(objs, "Role", "-leader-election") == nil {
				t.Error("no leader election with two replicas")
			}
		}},
		{"token auth, read-only, allowlist, no network policy", "cwac-token", []string{"mcp.auth.mode=token", "mcp.auth.tokenSecret.name=mcp-token", "mcp.readOnly=true", "scanPolicy.allowDomains={govt.nz}", "scanPolicy.denyCIDRs={10.96.0.0/12}", "networkPolicy.enabled=false"}, func(t *testing.T, objs []*unstructured.Unstructured) {
			a := args(t, objs, "mcp-server")
			for _, want := range []string{"--auth=token", "--auth-token-file=/var/run/cwac-mcp/token", "--read-only", "--url-allow-domains=govt.nz", "--url-deny-cidrs=10.96.0.0/12"} {
				if !hasArg(a, want) {
					t.Errorf("sidecar lacks %s: %v", want, a)
				}
			}
			if !hasArg(args(t, objs, "manager"), "--url-allow-domains=govt.nz") {
				t.Error("the operator does not enforce the same allowlist")
			}
			if find(objs, "NetworkPolicy", "") != nil || find(objs, "ClusterRoleBinding", "-mcp-auth-delegator") != nil {
				t.Error("network policy or auth delegation rendered when off")
			}
		}},
		{"Localhost seccomp for Chrome's sandbox", "cwac-seccomp", []string{"scans.seccompProfile.type=Localhost"}, func(t *testing.T, objs []*unstructured.Unstructured) {
			a := args(t, objs, "manager")
			if !hasArg(a, "--scan-seccomp-localhost-profile=profiles/cwac-chrome.json") {
				t.Errorf("args %v", a)
			}
			for _, x := range a {
				if strings.HasPrefix(x, "--chrome-extra-args=") && strings.Contains(x, "--no-sandbox") {
					t.Errorf("--no-sandbox kept under the Localhost profile: %s", x)
				}
			}
		}},
		{"no CRD, scan placement and env", "cwac-nocrd", []string{"crds.install=false", "scans.nodeSelector.pool=scans", "scans.env.HTTPS_PROXY=http://proxy:3128", "scans.colocateWithOperator=false", "operator.logLevel=debug"}, func(t *testing.T, objs []*unstructured.Unstructured) {
			a := args(t, objs, "manager")
			if find(objs, "CustomResourceDefinition", "") != nil || !hasArg(a, "--scan-node-selector=pool=scans") || !hasArg(a, "--scan-env=HTTPS_PROXY=http://proxy:3128") || !hasArg(a, "--zap-log-level=debug") {
				t.Errorf("args = %v", a)
			}
			for _, x := range a {
				if strings.HasPrefix(x, "--scan-affinity") {
					t.Errorf("affinity with colocateWithOperator=false: %s", x)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := render(t, tt.ns, tt.sets...)
			tt.check(t, objs)
			applyDryRun(t, objs)
			sampleScanAccepted(t, tt.ns)
		})
	}
}

func TestChartRefusesWrongValueTypes(t *testing.T) {
	for _, set := range []string{"mcp.auth.mode=open", "scanPolicy.allowCIDRs={localhost}", "scans.seccompProfile.type=Unconfined", "replicaCount=two", "mcp.enabled=yes", "rbac.scope=everywhere", "results.accessModes={Sometimes}", "mcp.callTimeout=soon", "unknownKey=1"} {
		cmd := exec.Command(helmBin(t), "template", "cwac", "../../charts/cwac-operator", "--kube-version", "1.37.1", "--set", set)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "values don't meet the specifications of the schema") {
			t.Errorf("--set %s: err %v\n%s", set, err, out)
		}
	}
}

func TestKustomizeAppliesToo(t *testing.T) {
	out := run(t, filepath.Join(assets, "kubectl"), "kustomize", "../../config/default")
	objs := decode(t, out)
	if len(kinds(objs)["Deployment"]) != 1 || len(kinds(objs)["CustomResourceDefinition"]) != 1 {
		t.Fatalf("kustomize rendered %v", kinds(objs))
	}
	applyDryRun(t, objs)
	sampleScanAccepted(t, "cwac-operator-system")
}

// TestChartRBACIsExactlyTheMarkers: the chart's roles grant exactly the rules
// controller-gen derives from the code's +kubebuilder:rbac markers.
func TestChartRBACIsExactlyTheMarkers(t *testing.T) {
	generated := func(path string) []rbacv1.PolicyRule {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var role rbacv1.ClusterRole
		if err := yaml.Unmarshal(data, &role); err != nil {
			t.Fatal(err)
		}
		return role.Rules
	}
	rulesOf := func(o *unstructured.Unstructured) []rbacv1.PolicyRule {
		if o == nil {
			t.Fatal("role not rendered")
		}
		data, _ := yaml.Marshal(o.Object["rules"])
		var rules []rbacv1.PolicyRule
		if err := yaml.Unmarshal(data, &rules); err != nil {
			t.Fatal(err)
		}
		return rules
	}
	cluster := render(t, "rbac")
	namespaced := render(t, "rbac", "rbac.scope=namespaced")
	manager := generated("../../config/rbac/role.yaml")
	mcp := generated("../../config/rbac/mcp_server_role.yaml")
	if diff := cmp.Diff(manager, rulesOf(find(cluster, "ClusterRole", "-manager"))); diff != "" {
		t.Errorf("cluster manager rules differ from the markers (-markers +chart):\n%s", diff)
	}
	if diff := cmp.Diff(manager, rulesOf(find(namespaced, "Role", "-manager"))); diff != "" {
		t.Errorf("namespaced manager rules differ from the markers (-markers +chart):\n%s", diff)
	}
	if diff := cmp.Diff(mcp, rulesOf(find(cluster, "Role", "-mcp-server"))); diff != "" {
		t.Errorf("MCP rules differ from the markers (-markers +chart):\n%s", diff)
	}
	// And the kustomize install grants the manager the same.
	kobjs := decode(t, run(t, filepath.Join(assets, "kubectl"), "kustomize", "../../config/default"))
	if diff := cmp.Diff(manager, rulesOf(find(kobjs, "ClusterRole", "manager-role"))); diff != "" {
		t.Errorf("kustomize manager rules differ from the markers:\n%s", diff)
	}
	// No wildcards anywhere.
	for _, objs := range [][]*unstructured.Unstructured{cluster, namespaced, kobjs} {
		for _, o := range objs {
			if o.GetKind() != "Role" && o.GetKind() != "ClusterRole" {
				continue
			}
			for _, r := range rulesOf(o) {
				for _, list := range [][]string{r.Verbs, r.Resources, r.APIGroups} {
					for _, v := range list {
						if v == "*" {
							t.Errorf("%s %s grants a wildcard: %+v", o.GetKind(), o.GetName(), r)
						}
					}
				}
			}
		}
	}
}
