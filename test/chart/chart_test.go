//go:build integration

// Package chart validates the Helm chart and the kustomize install against a
// real API server: rendered with several sets of values, every object is
// applied with a server-side dry run (so the API server validates it), and the
// chart's RBAC is checked to be exactly what the code's RBAC markers ask for,
// per service account (the operator's and the MCP server's own), enough to run
// a scan end to end as the operator's account and the MCP tools as the MCP
// server's, and nothing more.
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
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
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
	"github.com/a11y-dev/cwac-operator/internal/issueevents"
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
	args := append([]string{"template", "cwac", "../../charts/cwac-operator", "--namespace", namespace, "--kube-version", "1.37.1"}, setArgs(sets)...)
	return decode(t, run(t, helmBin(t), args...))
}

// setArgs turns key=value pairs into helm's --set arguments.
func setArgs(sets []string) []string {
	out := make([]string, 0, 2*len(sets))
	for _, s := range sets {
		out = append(out, "--set", s)
	}
	return out
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
		if err := serverSideApply(ctx, o, client.ForceOwnership, client.DryRunAll); err != nil {
			t.Errorf("server-side dry run of %s %s/%s refused: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
	}
}

func ensureNamespace(t *testing.T, ns string) {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("Namespace")
	u.SetName(ns)
	if err := serverSideApply(context.Background(), u); err != nil {
		t.Fatalf("namespace %s: %v", ns, err)
	}
}

// serverSideApply applies o with server-side apply as the field manager
// chart-test. The API server's answer is written into the object applied,
// so that is a copy of o.
func serverSideApply(ctx context.Context, o *unstructured.Unstructured, opts ...client.ApplyOption) error {
	opts = append([]client.ApplyOption{client.FieldOwner("chart-test")}, opts...)
	return admin.Apply(ctx, client.ApplyConfigurationFromUnstructured(o.DeepCopy()), opts...)
}

func ensureCRD(t *testing.T, o *unstructured.Unstructured) {
	t.Helper()
	if err := serverSideApply(context.Background(), o, client.ForceOwnership); err != nil {
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

// container finds a container by name in any rendered Deployment, and the
// Deployment holding it.
func container(t *testing.T, objs []*unstructured.Unstructured, name string) (map[string]any, *unstructured.Unstructured) {
	t.Helper()
	seen := false
	for _, dep := range objs {
		if dep.GetKind() != "Deployment" {
			continue
		}
		seen = true
		cs, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
		for _, c := range cs {
			if m := c.(map[string]any); m["name"] == name {
				return m, dep
			}
		}
	}
	if !seen {
		t.Fatal("no Deployment rendered")
	}
	return nil, nil
}

func args(t *testing.T, objs []*unstructured.Unstructured, name string) []string {
	t.Helper()
	m, _ := container(t, objs, name)
	if m == nil {
		return nil
	}
	var out []string
	for _, a := range m["args"].([]any) {
		out = append(out, a.(string))
	}
	return out
}

// podSpec decodes a rendered Deployment's pod template.
func podSpec(t *testing.T, dep *unstructured.Unstructured) (map[string]string, corev1.PodSpec) {
	t.Helper()
	if dep == nil {
		t.Fatal("Deployment not rendered")
	}
	data, _ := yaml.Marshal(dep.Object["spec"].(map[string]any)["template"])
	var tmpl corev1.PodTemplateSpec
	if err := yaml.Unmarshal(data, &tmpl); err != nil {
		t.Fatal(err)
	}
	return tmpl.Labels, tmpl.Spec
}

func selector(t *testing.T, o *unstructured.Unstructured, path ...string) labels.Selector {
	t.Helper()
	m, _, _ := unstructured.NestedStringMap(o.Object, path...)
	if len(m) == 0 {
		t.Fatalf("%s %s has no selector at %v", o.GetKind(), o.GetName(), path)
	}
	return labels.SelectorFromSet(m)
}

// checkMCPDeployment: the MCP server runs in its own pod, as its own service
// account, hardened, with the results volume mounted read-only, and the
// operator's pod no longer carries it or the volume.
func checkMCPDeployment(t *testing.T, objs []*unstructured.Unstructured, wantSA string) {
	t.Helper()
	mcpC, mcpDep := container(t, objs, "mcp-server")
	_, opDep := container(t, objs, "manager")
	if mcpC == nil || mcpDep == nil || mcpDep == opDep || mcpDep.GetName() != "cwac-cwac-operator-mcp" {
		t.Fatalf("the MCP server is not a Deployment of its own: %v", kinds(objs)["Deployment"])
	}
	opLabels, op := podSpec(t, opDep)
	mcpLabels, pod := podSpec(t, mcpDep)
	if len(op.Containers) != 1 || len(op.Volumes) != 0 {
		t.Errorf("the operator pod still has %d containers and volumes %v", len(op.Containers), op.Volumes)
	}
	if pod.ServiceAccountName != wantSA || op.ServiceAccountName == pod.ServiceAccountName {
		t.Errorf("MCP pod runs as %q (want %q), operator as %q", pod.ServiceAccountName, wantSA, op.ServiceAccountName)
	}
	checkSelectorsApart(t, objs, opDep, mcpDep, opLabels, mcpLabels)
	checkMCPResultsReadOnly(t, pod)
	checkMCPCompareScratch(t, pod, "")
	checkMCPHardened(t, pod)
}

// checkMCPCompareScratch: the MCP server compares scans in files in a
// writable emptyDir on the node's disk (not memory, which would count
// against the pod's limit) of the given size ("": any), and is told where.
func checkMCPCompareScratch(t *testing.T, pod corev1.PodSpec, size string) {
	t.Helper()
	c := pod.Containers[0]
	mounted := false
	for _, m := range c.VolumeMounts {
		mounted = mounted || (m.Name == "compare-scratch" && m.MountPath == "/var/lib/cwac-compare" && !m.ReadOnly)
	}
	var ok bool
	for _, v := range pod.Volumes {
		if e := v.EmptyDir; v.Name == "compare-scratch" && e != nil {
			ok = e.Medium == corev1.StorageMediumDefault && e.SizeLimit != nil && (size == "" || e.SizeLimit.String() == size)
		}
	}
	if !mounted || !ok || !slices.Contains(c.Args, "--compare-dir=/var/lib/cwac-compare") {
		t.Errorf("the compare scratch directory (%s on disk) is not mounted writable and passed: %+v %+v %v", size, c.VolumeMounts, pod.Volumes, c.Args)
	}
}

// checkSelectorsApart: each Deployment and Service picks its own pods only.
func checkSelectorsApart(t *testing.T, objs []*unstructured.Unstructured, opDep, mcpDep *unstructured.Unstructured, opLabels, mcpLabels map[string]string) {
	t.Helper()
	opSel, mcpSel := selector(t, opDep, "spec", "selector", "matchLabels"), selector(t, mcpDep, "spec", "selector", "matchLabels")
	opPod, mcpPod := labels.Set(opLabels), labels.Set(mcpLabels)
	if !opSel.Matches(opPod) || opSel.Matches(mcpPod) || !mcpSel.Matches(mcpPod) || mcpSel.Matches(opPod) {
		t.Errorf("Deployment selectors overlap: operator %v / %v, MCP %v / %v", opSel, opLabels, mcpSel, mcpLabels)
	}
	svc := selector(t, find(objs, "Service", "-mcp"), "spec", "selector")
	if !svc.Matches(mcpPod) || svc.Matches(opPod) {
		t.Errorf("the MCP Service selects %v: MCP pod %v, operator pod %v", svc, mcpLabels, opLabels)
	}
	if m := find(objs, "Service", "-metrics"); m != nil && selector(t, m, "spec", "selector").Matches(mcpPod) {
		t.Error("the metrics Service selects the MCP pod")
	}
}

// checkMCPResultsReadOnly: the MCP pod has the results volume read-only, in
// the mount and in the volume source.
func checkMCPResultsReadOnly(t *testing.T, pod corev1.PodSpec) {
	t.Helper()
	c := pod.Containers[0]
	ro := false
	for _, m := range c.VolumeMounts {
		if m.Name == "results" {
			ro = m.ReadOnly && m.MountPath == "/results"
		}
	}
	for _, v := range pod.Volumes {
		if v.Name == "results" && (v.PersistentVolumeClaim == nil || !v.PersistentVolumeClaim.ReadOnly) {
			ro = false
		}
	}
	if !ro {
		t.Errorf("results not mounted read-only: %+v %+v", c.VolumeMounts, pod.Volumes)
	}
}

// checkMCPHardened: the MCP pod is hardened like the operator's, and its
// container has a memory limit.
func checkMCPHardened(t *testing.T, pod corev1.PodSpec) {
	t.Helper()
	c := pod.Containers[0]
	psc, sc := pod.SecurityContext, c.SecurityContext
	// fsGroup only for the history's SQLite claim, and only as the scanner's
	// group the results volume already has (checkHistory).
	if psc == nil || sc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 ||
		(psc.FSGroup != nil && *psc.FSGroup != 1000) ||
		psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("MCP pod not hardened: pod %+v container %+v", psc, sc)
	}
	if c.Resources.Limits.Memory().IsZero() {
		t.Errorf("MCP container without a memory limit: %+v", c.Resources)
	}
}

// mcpAffinity is the MCP pod's required pod affinity to the operator's pod, if any.
func mcpAffinity(t *testing.T, objs []*unstructured.Unstructured) []corev1.PodAffinityTerm {
	t.Helper()
	_, dep := container(t, objs, "mcp-server")
	_, pod := podSpec(t, dep)
	if pod.Affinity == nil || pod.Affinity.PodAffinity == nil {
		return nil
	}
	return pod.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
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
		{"defaults", "cwac-system", nil, checkDefaults},
		{"namespaced", "cwac-ns", []string{"rbac.scope=namespaced", "rbac.watchNamespaces={team-a,team-b}"}, checkNamespaced},
		{"MCP server off", "cwac-nomcp", []string{"mcp.enabled=false"}, checkMCPOff},
		{"ReadWriteMany: MCP pod anywhere, own placement, two replicas on PostgreSQL", "cwac-rwx", []string{
			"results.accessModes={ReadWriteMany}", "mcp.colocateWithOperator=false", "scans.colocateWithOperator=false",
			"mcp.replicaCount=2", "mcp.nodeSelector.pool=mcp", "mcp.podLabels.team=a11y", "mcp.resources.limits.memory=128Mi",
			"store.dsnSecret.name=history-dsn", "store.dsnSecret.key=url", "store.maxAge=26280h", "store.maxScans=156",
		}, checkReadWriteMany},
		{"no issue history, a larger compare scratch", "cwac-nohistory", []string{"store.enabled=false", "mcp.compareScratch=2Gi"}, checkNoHistory},
		{"issue events to a tracker", "cwac-events", []string{
			"issueEvents.receivers[0].name=tracker", "issueEvents.receivers[0].urlSecret.name=tracker-hook",
			"issueEvents.receivers[0].hmacSecret.name=tracker-hook", "issueEvents.receivers[0].hmacSecret.key=signing",
			"issueEvents.receivers[0].organisations[0]=Ministry of Health", "issueEvents.allowCIDRs={10.0.0.0/8}",
			"issueEvents.allowHTTP=true",
		}, checkIssueEvents},
		{"hostNetwork for a cluster without kube-proxy", "cwac-hostnet", []string{
			"hostNetwork=true", "mcp.listenAddress=127.0.0.1", "extraEnv[0].name=KUBERNETES_SERVICE_HOST", "extraEnv[0].value=127.0.0.1",
			"mcp.serviceAccount.annotations.team=a11y",
		}, checkHostNetwork},
		{"MCP server on a service account the user manages", "cwac-mcpsa",
			[]string{"mcp.serviceAccount.create=false", "mcp.serviceAccount.name=my-mcp"}, checkUserManagedMCPAccount},
		{"existing claim", "cwac-claim", []string{"results.existingClaim=shared-results"}, checkExistingClaim},
		{"results in a bucket: no claim, MCP anywhere, two replicas", "cwac-bucket", bucketSets, checkBucket},
		{"results in a bucket with workload identity", "cwac-bucket-wi", []string{
			"results.bucket.endpoint=https://s3.eu-west-1.amazonaws.com", "results.bucket.name=cwac-results",
			"results.bucket.mergeServiceAccount.create=true", "scans.serviceAccountName=cwac-scans",
			`results.bucket.mergeServiceAccount.annotations.eks\.amazonaws\.com/role-arn=arn:aws:iam::111122223333:role/cwac-results`,
		}, checkBucketWorkloadIdentity},
		{"two replicas", "cwac-ha", []string{"replicaCount=2"}, checkTwoReplicas},
		{"token auth, read-only, allowlist, no network policy", "cwac-token", []string{
			"mcp.auth.mode=token", "mcp.auth.tokenSecret.name=mcp-token", "mcp.readOnly=true",
			"scanPolicy.allowDomains={govt.nz}", "scanPolicy.denyCIDRs={10.96.0.0/12}", "networkPolicy.enabled=false",
		}, checkTokenAuthReadOnly},
		{"Localhost seccomp for Chrome's sandbox", "cwac-seccomp", []string{"scans.seccompProfile.type=Localhost"}, checkLocalhostSeccomp},
		{"no CRD, scan placement and env", "cwac-nocrd", []string{
			"crds.install=false", "scans.nodeSelector.pool=scans", "scans.env.HTTPS_PROXY=http://proxy:3128",
			"scans.colocateWithOperator=false", "operator.logLevel=debug",
		}, checkNoCRDScanPlacement},
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

// checkDefaults: the default install renders every kind, two Deployments,
// service accounts and Services, the MCP pod on the operator's node, and
// kubernetes auth with URL checks.
func checkDefaults(t *testing.T, objs []*unstructured.Unstructured) {
	k := kinds(objs)
	for _, kind := range []string{
		"CustomResourceDefinition", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding",
		"Service", "PersistentVolumeClaim", "Deployment",
	} {
		if len(k[kind]) == 0 {
			t.Errorf("no %s rendered", kind)
		}
	}
	if len(k["Service"]) != 2 || len(k["Deployment"]) != 2 || len(k["ServiceAccount"]) != 2 {
		t.Errorf("want two Deployments, two ServiceAccounts and two Services: %v", k)
	}
	checkMCPDeployment(t, objs, "cwac-cwac-operator-mcp")
	// ReadWriteOnce by default: the MCP pod runs on the operator's node.
	_, opDep := container(t, objs, "manager")
	opLabels, _ := podSpec(t, opDep)
	aff := mcpAffinity(t, objs)
	if len(aff) != 1 || aff[0].TopologyKey != "kubernetes.io/hostname" ||
		!labels.SelectorFromSet(aff[0].LabelSelector.MatchLabels).Matches(labels.Set(opLabels)) {
		t.Errorf("MCP pod affinity %+v, want the operator's node", aff)
	}
	if hasArg(args(t, objs, "manager"), "--leader-elect") {
		t.Error("leader election with one replica")
	}
	if find(objs, "NetworkPolicy", "-scans") == nil || find(objs, "ClusterRoleBinding", "-mcp-auth-delegator") == nil {
		t.Errorf("default install lacks the scan NetworkPolicy or the MCP server's auth delegation: %v", k)
	}
	checkRunnerPodsPolicy(t, objs, nil)
	mcpArgs := args(t, objs, "mcp-server")
	if !hasArg(mcpArgs, "--auth=kubernetes") || !hasArg(mcpArgs, "--url-resolve=true") ||
		!hasArg(args(t, objs, "manager"), "--url-check-redirects=true") {
		t.Errorf("MCP server args %v", mcpArgs)
	}
	checkHistory(t, objs)
}

// checkNamespaced: rbac.scope=namespaced grants Roles in the watched
// namespaces and nothing cluster-wide but the MCP server's auth delegation.
func checkNamespaced(t *testing.T, objs []*unstructured.Unstructured) {
	k := kinds(objs)
	// The only cluster-scoped grants left are token and permission reviews
	// (system:auth-delegator, cluster-scoped APIs) for the MCP server and for
	// the operator's secure metrics endpoint, permission reviews for the
	// operator's decisions, and the metrics-reader role (GET /metrics) for
	// scrapers.
	if len(k["ClusterRole"]) != 2 || find(objs, "ClusterRole", "-metrics-reader") == nil || find(objs, "ClusterRole", "-access-review") == nil ||
		len(k["ClusterRoleBinding"]) != 3 || find(objs, "ClusterRoleBinding", "-access-review") == nil ||
		find(objs, "ClusterRoleBinding", "-mcp-auth-delegator") == nil || find(objs, "ClusterRoleBinding", "-metrics-auth-delegator") == nil {
		t.Errorf("cluster-wide RBAC in namespaced mode: %v", k)
	}
	if find(objs, "Role", "-manager") == nil || !hasArg(args(t, objs, "manager"), "--watch-namespaces=team-a,team-b") {
		t.Errorf("namespaced roles or flag missing: %v %v", k["Role"], args(t, objs, "manager"))
	}
	want := []string{"team-a/cwac-cwac-operator-manager", "team-b/cwac-cwac-operator-manager", "cwac-ns/cwac-cwac-operator-mcp-server"}
	if diff := cmp.Diff(want, k["Role"]); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
}

// checkMCPOff: mcp.enabled=false renders nothing of the MCP server.
func checkMCPOff(t *testing.T, objs []*unstructured.Unstructured) {
	k := kinds(objs)
	if args(t, objs, "mcp-server") != nil || find(objs, "Service", "-mcp") != nil || find(objs, "Role", "-mcp-server") != nil ||
		len(k["Deployment"]) != 1 || len(k["ServiceAccount"]) != 1 || find(objs, "ClusterRoleBinding", "-mcp-auth-delegator") != nil {
		t.Errorf("MCP objects rendered with mcp.enabled=false: %v", k)
	}
}

// checkReadWriteMany: with a ReadWriteMany volume the MCP pod has no
// affinity to the operator's, and takes its own replicas, placement, labels
// and resources.
func checkReadWriteMany(t *testing.T, objs []*unstructured.Unstructured) {
	checkMCPDeployment(t, objs, "cwac-cwac-operator-mcp")
	if aff := mcpAffinity(t, objs); aff != nil {
		t.Errorf("affinity with mcp.colocateWithOperator=false: %+v", aff)
	}
	mc, dep := container(t, objs, "mcp-server")
	lbls, pod := podSpec(t, dep)
	r, _, _ := unstructured.NestedFieldNoCopy(dep.Object, "spec", "replicas")
	if fmt.Sprint(r) != "2" || pod.NodeSelector["pool"] != "mcp" || lbls["team"] != "a11y" {
		t.Errorf("replicas %v nodeSelector %v labels %v", r, pod.NodeSelector, lbls)
	}
	if fmt.Sprint(mc["resources"]) != "map[limits:map[memory:128Mi] requests:map[cpu:10m memory:32Mi]]" {
		t.Errorf("resources %v", mc["resources"])
	}
	// PostgreSQL: its DSN from the Secret as a file, no claim, no fsGroup.
	mcpArgs := args(t, objs, "mcp-server")
	if !hasArg(mcpArgs, "--store-file=/var/run/cwac-store/dsn") || hasArgPrefix(mcpArgs, "--store=") ||
		!hasArg(mcpArgs, "--history-max-age=26280h") || !hasArg(mcpArgs, "--history-max-scans=156") {
		t.Errorf("MCP server args %v", mcpArgs)
	}
	mounted := false
	for _, v := range pod.Volumes {
		if v.Secret != nil && v.Secret.SecretName == "history-dsn" && len(v.Secret.Items) == 1 && v.Secret.Items[0].Key == "url" && v.Secret.Items[0].Path == "dsn" {
			for _, m := range pod.Containers[0].VolumeMounts {
				mounted = mounted || (m.Name == v.Name && m.MountPath == "/var/run/cwac-store" && m.ReadOnly)
			}
		}
	}
	if !mounted || find(objs, "PersistentVolumeClaim", "-history") != nil || pod.SecurityContext.FSGroup != nil {
		t.Errorf("the PostgreSQL DSN is not mounted from its Secret, or a history claim or fsGroup was rendered: %+v", pod.Volumes)
	}
	if s, _, _ := unstructured.NestedString(dep.Object, "spec", "strategy", "type"); s != "" {
		t.Errorf("MCP Deployment strategy %q with PostgreSQL: replicas roll", s)
	}
}

// checkHistory: by default the MCP server keeps the issue history in an
// SQLite file on a ReadWriteOnce claim of its own, writable through the
// pod's fsGroup (only when the claim's root differs), elected by a Lease
// named after the release, and knows its pod's name.
func checkHistory(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	mc, dep := container(t, objs, "mcp-server")
	_, pod := podSpec(t, dep)
	mcpArgs := args(t, objs, "mcp-server")
	if !hasArg(mcpArgs, "--store=sqlite:///var/lib/cwac-history/history.db") || !hasArg(mcpArgs, "--history-lease=cwac-cwac-operator-history-writer") ||
		!hasArg(mcpArgs, "--history-max-age=0s") || !hasArg(mcpArgs, "--history-max-scans=0") || !hasArg(mcpArgs, "--history-max-issues=1000000") {
		t.Errorf("MCP server args %v", mcpArgs)
	}
	pvc := find(objs, "PersistentVolumeClaim", "cwac-operator-history")
	if pvc == nil {
		t.Fatal("no claim for the SQLite store")
	}
	modes, _, _ := unstructured.NestedStringSlice(pvc.Object, "spec", "accessModes")
	size, _, _ := unstructured.NestedString(pvc.Object, "spec", "resources", "requests", "storage")
	if !slices.Equal(modes, []string{"ReadWriteOnce"}) || size != "5Gi" || pvc.GetAnnotations()["helm.sh/resource-policy"] != "keep" {
		t.Errorf("history claim: modes %v size %s annotations %v", modes, size, pvc.GetAnnotations())
	}
	mounted := false
	for _, v := range pod.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == pvc.GetName() && !v.PersistentVolumeClaim.ReadOnly {
			for _, m := range pod.Containers[0].VolumeMounts {
				mounted = mounted || (m.Name == v.Name && m.MountPath == "/var/lib/cwac-history" && !m.ReadOnly)
			}
		}
	}
	psc := pod.SecurityContext
	if !mounted || psc.FSGroup == nil || *psc.FSGroup != 1000 || psc.FSGroupChangePolicy == nil || *psc.FSGroupChangePolicy != corev1.FSGroupChangeOnRootMismatch {
		t.Errorf("history claim not mounted writable with fsGroup 1000 (OnRootMismatch): %+v %+v", pod.Volumes, psc)
	}
	env, _ := mc["env"].([]any)
	if len(env) == 0 || fmt.Sprint(env[0]) != "map[name:POD_NAME valueFrom:map[fieldRef:map[fieldPath:metadata.name]]]" {
		t.Errorf("MCP env %v, want POD_NAME first", env)
	}
	// A ReadWriteOnce claim cannot follow a new pod to another node while
	// the old one holds it.
	if s, _, _ := unstructured.NestedString(dep.Object, "spec", "strategy", "type"); s != "Recreate" {
		t.Errorf("MCP Deployment strategy %q with the SQLite store, want Recreate", s)
	}
}

// checkNoHistory: store.enabled=false runs the MCP server without a store.
func checkNoHistory(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	checkMCPDeployment(t, objs, "cwac-cwac-operator-mcp")
	_, dep := container(t, objs, "mcp-server")
	_, pod := podSpec(t, dep)
	if a := args(t, objs, "mcp-server"); hasArgPrefix(a, "--store") || hasArgPrefix(a, "--history-") {
		t.Errorf("MCP server args %v", a)
	}
	checkMCPCompareScratch(t, pod, "2Gi")
	if find(objs, "PersistentVolumeClaim", "-history") != nil || pod.SecurityContext.FSGroup != nil || len(pod.Volumes) != 2 {
		t.Errorf("a history claim, fsGroup or volume (besides the results and the compare scratch) without the history: %+v", pod.Volumes)
	}
	if s, _, _ := unstructured.NestedString(dep.Object, "spec", "strategy", "type"); s != "" {
		t.Errorf("MCP Deployment strategy %q without a claim of its own", s)
	}
}

// checkIssueEvents: each receiver's URL and key are mounted from its
// Secrets, read-only, and the server's receivers flag names those files as
// the server parses it.
func checkIssueEvents(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	a := args(t, objs, "mcp-server")
	var text string
	for _, arg := range a {
		if v, ok := strings.CutPrefix(arg, "--issue-event-receivers="); ok {
			text = v
		}
	}
	files := map[string]string{"/var/run/cwac-issue-events/tracker/url": "https://tracker.example/", "/var/run/cwac-issue-events/tracker/hmac": "k"}
	rs, err := issueevents.ParseReceivers([]byte(text), func(p string) ([]byte, error) {
		if v, ok := files[p]; ok {
			return []byte(v), nil
		}
		return nil, fmt.Errorf("no file %s", p)
	})
	if err != nil || len(rs) != 1 || rs[0].Name != "tracker" || !slices.Equal(rs[0].Organisations, []string{"Ministry of Health"}) {
		t.Errorf("--issue-event-receivers %q: %+v, %v", text, rs, err)
	}
	if !hasArg(a, "--issue-events-allow-cidrs=10.0.0.0/8") || !hasArg(a, "--issue-events-allow-http") {
		t.Errorf("MCP server args %v", a)
	}
	_, dep := container(t, objs, "mcp-server")
	_, pod := podSpec(t, dep)
	var vol *corev1.Volume
	for i := range pod.Volumes {
		if pod.Volumes[i].Name == "issue-events-tracker" {
			vol = &pod.Volumes[i]
		}
	}
	if vol == nil || vol.Projected == nil || len(vol.Projected.Sources) != 2 ||
		vol.Projected.Sources[0].Secret.Name != "tracker-hook" || vol.Projected.Sources[0].Secret.Items[0].Key != "url" ||
		vol.Projected.Sources[1].Secret.Items[0].Key != "signing" || vol.Projected.Sources[1].Secret.Items[0].Path != "hmac" {
		t.Fatalf("issue-events volume %+v", vol)
	}
	mounted := false
	for _, c := range pod.Containers {
		for _, m := range c.VolumeMounts {
			if m.Name == "issue-events-tracker" {
				mounted = c.Name == "mcp-server" && m.ReadOnly && m.MountPath == "/var/run/cwac-issue-events/tracker"
			}
		}
	}
	if !mounted {
		t.Errorf("the receiver's files are not mounted read-only where the flag names them: %+v", pod.Containers)
	}
}

func hasArgPrefix(list []string, prefix string) bool {
	for _, a := range list {
		if strings.HasPrefix(a, prefix) {
			return true
		}
	}
	return false
}

// checkHostNetwork: hostNetwork=true puts the MCP pod on the host's network
// with cluster DNS, the extra env, Recreate updates and its own listen
// address; the MCP service account takes its annotations.
func checkHostNetwork(t *testing.T, objs []*unstructured.Unstructured) {
	checkMCPDeployment(t, objs, "cwac-cwac-operator-mcp")
	mc, dep := container(t, objs, "mcp-server")
	_, pod := podSpec(t, dep)
	if !pod.HostNetwork || pod.DNSPolicy != corev1.DNSClusterFirstWithHostNet ||
		fmt.Sprint(mc["env"]) != "[map[name:POD_NAME valueFrom:map[fieldRef:map[fieldPath:metadata.name]]] map[name:KUBERNETES_SERVICE_HOST value:127.0.0.1]]" {
		t.Errorf("MCP pod hostNetwork %v dns %v env %v", pod.HostNetwork, pod.DNSPolicy, mc["env"])
	}
	s, _, _ := unstructured.NestedString(dep.Object, "spec", "strategy", "type")
	if s != "Recreate" || !hasArg(args(t, objs, "mcp-server"), "--listen=127.0.0.1:8090") {
		t.Errorf("strategy %q args %v", s, args(t, objs, "mcp-server"))
	}
	if sa := find(objs, "ServiceAccount", "-mcp"); sa == nil || sa.GetAnnotations()["team"] != "a11y" {
		t.Errorf("MCP service account %v", sa)
	}
}

// checkUserManagedMCPAccount: with mcp.serviceAccount.create=false the chart
// renders only the operator's service account and binds the MCP server's
// roles to the one named.
func checkUserManagedMCPAccount(t *testing.T, objs []*unstructured.Unstructured) {
	checkMCPDeployment(t, objs, "my-mcp")
	if len(kinds(objs)["ServiceAccount"]) != 1 {
		t.Errorf("service accounts %v", kinds(objs)["ServiceAccount"])
	}
	for _, b := range []*unstructured.Unstructured{find(objs, "RoleBinding", "-mcp-server"), find(objs, "ClusterRoleBinding", "-mcp-auth-delegator")} {
		if subj, _, _ := unstructured.NestedSlice(b.Object, "subjects"); len(subj) != 1 || subj[0].(map[string]any)["name"] != "my-mcp" {
			t.Errorf("%s %s binds %v", b.GetKind(), b.GetName(), subj)
		}
	}
}

// checkExistingClaim: results.existingClaim is used instead of a new claim
// (the history's claim is its own).
func checkExistingClaim(t *testing.T, objs []*unstructured.Unstructured) {
	if find(objs, "PersistentVolumeClaim", "cwac-results") != nil || !hasArg(args(t, objs, "manager"), "--results-pvc=shared-results") {
		t.Errorf("existing claim not used: %v", args(t, objs, "manager"))
	}
}

// checkTwoReplicas: two operator replicas elect a leader.
func checkTwoReplicas(t *testing.T, objs []*unstructured.Unstructured) {
	if !hasArg(args(t, objs, "manager"), "--leader-elect") || find(objs, "Role", "-leader-election") == nil {
		t.Error("no leader election with two replicas")
	}
}

// checkTokenAuthReadOnly: token auth, read-only mode and the scan policy
// reach the MCP server's flags, the operator enforces the same allowlist,
// and no network policy or auth delegation is rendered.
func checkTokenAuthReadOnly(t *testing.T, objs []*unstructured.Unstructured) {
	checkMCPDeployment(t, objs, "cwac-cwac-operator-mcp")
	a := args(t, objs, "mcp-server")
	for _, want := range []string{
		"--auth=token", "--auth-token-file=/var/run/cwac-mcp/token", "--read-only", "--url-allow-domains=govt.nz", "--url-deny-cidrs=10.96.0.0/12",
	} {
		if !hasArg(a, want) {
			t.Errorf("MCP server lacks %s: %v", want, a)
		}
	}
	if !hasArg(args(t, objs, "manager"), "--url-allow-domains=govt.nz") {
		t.Error("the operator does not enforce the same allowlist")
	}
	if find(objs, "NetworkPolicy", "") != nil || find(objs, "ClusterRoleBinding", "-mcp-auth-delegator") != nil {
		t.Error("network policy or auth delegation rendered when off")
	}
}

// checkLocalhostSeccomp: a Localhost seccomp profile is passed to the
// operator and Chrome keeps its sandbox.
func checkLocalhostSeccomp(t *testing.T, objs []*unstructured.Unstructured) {
	a := args(t, objs, "manager")
	if !hasArg(a, "--scan-seccomp-localhost-profile=profiles/cwac-chrome.json") {
		t.Errorf("args %v", a)
	}
	for _, x := range a {
		if strings.HasPrefix(x, "--chrome-extra-args=") && strings.Contains(x, "--no-sandbox") {
			t.Errorf("--no-sandbox kept under the Localhost profile: %s", x)
		}
	}
}

// checkNoCRDScanPlacement: crds.install=false renders no CRD, and the scans'
// node selector, env and the log level reach the operator's flags, without
// affinity when scans need not run beside the operator.
func checkNoCRDScanPlacement(t *testing.T, objs []*unstructured.Unstructured) {
	a := args(t, objs, "manager")
	if find(objs, "CustomResourceDefinition", "") != nil || !hasArg(a, "--scan-node-selector=pool=scans") ||
		!hasArg(a, "--scan-env=HTTPS_PROXY=http://proxy:3128") || !hasArg(a, "--zap-log-level=debug") {
		t.Errorf("args = %v", a)
	}
	for _, x := range a {
		if strings.HasPrefix(x, "--scan-affinity") {
			t.Errorf("affinity with colocateWithOperator=false: %s", x)
		}
	}
}

func TestChartRefusesWrongValueTypes(t *testing.T) {
	for _, set := range []string{
		"mcp.replicaCount=two", "mcp.serviceAccount.create=maybe", "mcp.colocateWithOperator=1", "mcp.serviceAccount.extra=x",
		"mcp.auth.mode=open", "scanPolicy.allowCIDRs={localhost}", "scans.seccompProfile.type=Unconfined", "replicaCount=two",
		"mcp.enabled=yes", "rbac.scope=everywhere", "results.accessModes={Sometimes}", "mcp.callTimeout=soon", "unknownKey=1",
		"store.enabled=yes", "store.maxAge=3y", "store.maxScans=-1", "store.sqlite.accessModes={Sometimes}", "store.dsnSecret.name=Bad_Name",
		"store.sqlite.fsGroup=0", "store.other=1", "mcp.compareScratch=lots",
	} {
		cmd := exec.Command(helmBin(t), "template", "cwac", "../../charts/cwac-operator", "--kube-version", "1.37.1", "--set", set)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "values don't meet the specifications of the schema") {
			t.Errorf("--set %s: err %v\n%s", set, err, out)
		}
	}
}

// TestChartRefusesValuesThatUndoTheSeparation: the MCP server may not share
// the operator's service account, nor a host port with it.
func TestChartRefusesValuesThatUndoTheSeparation(t *testing.T) {
	for _, tt := range []struct {
		sets []string
		want string
	}{
		{[]string{"mcp.serviceAccount.name=cwac-cwac-operator"}, "must differ from the operator's service account"},
		{[]string{"serviceAccount.name=shared", "mcp.serviceAccount.name=shared"}, "must differ from the operator's service account"},
		{[]string{"hostNetwork=true", "mcp.port=8081"}, "is one of the operator's ports"},
		{[]string{"hostNetwork=true", "metrics.port=9000", "mcp.port=9000"}, "is one of the operator's ports"},
		{[]string{"mcp.replicaCount=2"}, "mcp.replicaCount 2 needs the PostgreSQL store (store.dsnSecret.name) or store.enabled=false"},
		// Not separation, but refused alike: two sources of CWAC's defaults,
		// where the chart's would silently win over the image's.
		{[]string{"cwac.imageHasDefaults=true", "cwac.defaultConfig=x"}, "but cwac.defaultConfig is set too, and it would win over the image's"},
		// Digests that could never be sent.
		{[]string{"digests.smtp.host=smtp.example", "digests.dashboardURL=https://cwac.example"}, "digests.smtp.from is required with digests.smtp.host"},
		{[]string{"digests.smtp.host=smtp.example", "digests.smtp.from=d@cwac.example"}, "digests.dashboardURL is required with digests.smtp.host"},
		{[]string{"digests.smtp.host=smtp.example", "digests.smtp.from=d@cwac.example", "digests.dashboardURL=https://cwac.example", "store.enabled=false"},
			"digests.smtp.host needs store.enabled=true"},
		{[]string{"digests.smtp.security=NONE"}, "/digests/smtp/security"},
		// Issue events that could never be sent, or unsigned.
		{[]string{"issueEvents.receivers[0].name=t", "issueEvents.receivers[0].urlSecret.name=s", "issueEvents.receivers[0].hmacSecret.name=s",
			"store.enabled=false"}, "issueEvents.receivers needs store.enabled=true"},
		{[]string{"issueEvents.receivers[0].name=t", "issueEvents.receivers[0].urlSecret.name=s"}, "hmacSecret"},
		{[]string{"issueEvents.receivers[0].name=Tracker", "issueEvents.receivers[0].urlSecret.name=s", "issueEvents.receivers[0].hmacSecret.name=s"},
			"/issueEvents/receivers/0/name"},
	} {
		a := append([]string{"template", "cwac", "../../charts/cwac-operator", "--kube-version", "1.37.1"}, setArgs(tt.sets)...)
		out, err := exec.Command(helmBin(t), a...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), tt.want) {
			t.Errorf("%v: err %v\n%s", tt.sets, err, out)
		}
	}
}

func TestKustomizeAppliesToo(t *testing.T) {
	out := run(t, filepath.Join(assets, "kubectl"), "kustomize", "../../config/default")
	objs := decode(t, out)
	crds, err := filepath.Glob("../../config/crd/bases/*.yaml")
	if err != nil || len(crds) == 0 {
		t.Fatalf("no CRDs in config/crd/bases: %v", err)
	}
	if len(kinds(objs)["Deployment"]) != 1 || len(kinds(objs)["CustomResourceDefinition"]) != len(crds) {
		t.Fatalf("kustomize rendered %v", kinds(objs))
	}
	applyDryRun(t, objs)
	sampleScanAccepted(t, "cwac-operator-system")
}

// grant is one role bound to a service account: its kind, namespace/name and rules.
type grant struct {
	Kind, Name string
	Rules      []rbacv1.PolicyRule
}

func rulesOf(t *testing.T, o *unstructured.Unstructured) []rbacv1.PolicyRule {
	t.Helper()
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

// grantsOf collects, from the rendered bindings, every role bound to the
// service account namespace/name (a role not rendered, such as the built-in
// system:auth-delegator, has nil rules).
func grantsOf(t *testing.T, objs []*unstructured.Unstructured, namespace, name string) []grant {
	t.Helper()
	var out []grant
	for _, b := range objs {
		if b.GetKind() != "RoleBinding" && b.GetKind() != "ClusterRoleBinding" {
			continue
		}
		data, _ := yaml.Marshal(b.Object)
		var rb rbacv1.RoleBinding // a ClusterRoleBinding has the same shape
		if err := yaml.Unmarshal(data, &rb); err != nil {
			t.Fatal(err)
		}
		bound := false
		for _, s := range rb.Subjects {
			bound = bound || (s.Kind == "ServiceAccount" && s.Name == name && s.Namespace == namespace)
		}
		if !bound {
			continue
		}
		g := grant{Kind: rb.RoleRef.Kind, Name: rb.RoleRef.Name}
		if rb.RoleRef.Kind == "Role" {
			g.Name = b.GetNamespace() + "/" + g.Name
		}
		for _, r := range objs {
			if r.GetKind() == rb.RoleRef.Kind && r.GetName() == rb.RoleRef.Name && r.GetNamespace() == b.GetNamespace() {
				g.Rules = rulesOf(t, r)
			}
		}
		out = append(out, g)
	}
	return out
}

// TestChartRBACIsExactlyTheMarkers: per service account, the chart grants
// exactly the rules controller-gen derives from the code's +kubebuilder:rbac
// markers: the operator's account the manager's, the MCP server's own account
// the MCP server's (plus system:auth-delegator in kubernetes auth mode), and
// neither anything of the other's. The operator also holds
// system:auth-delegator while it serves metrics securely (metrics.secure,
// the default), to review scrapers' tokens and rights.
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
	manager := generated("../../config/rbac/role.yaml")
	mcp := generated("../../config/rbac/mcp_server_role.yaml")
	leader := generated("../../config/rbac/leader_election_role.yaml")
	delegator := grant{Kind: "ClusterRole", Name: "system:auth-delegator"}
	const op, mcpSA = "cwac-cwac-operator", "cwac-cwac-operator-mcp"
	mcpRole := grant{Kind: "Role", Name: "rbac/cwac-cwac-operator-mcp-server", Rules: mcp}
	// In namespaced scope the manager's one cluster-scoped rule, which no
	// Role can grant, is a ClusterRole of its own.
	accessReview := grant{Kind: "ClusterRole", Name: "cwac-cwac-operator-access-review", Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}}}}
	for _, tt := range []struct {
		name            string
		sets            []string
		operator, mcpSA []grant
	}{
		{"cluster scope", nil,
			[]grant{delegator, {Kind: "ClusterRole", Name: "cwac-cwac-operator-manager", Rules: manager}},
			[]grant{delegator, mcpRole}},
		{"cluster scope, metrics over plain HTTP", []string{"metrics.secure=false"},
			[]grant{{Kind: "ClusterRole", Name: "cwac-cwac-operator-manager", Rules: manager}},
			[]grant{delegator, mcpRole}},
		{"namespaced scope", []string{"rbac.scope=namespaced"},
			[]grant{delegator, accessReview, {Kind: "Role", Name: "rbac/cwac-cwac-operator-manager", Rules: manager}},
			[]grant{delegator, mcpRole}},
		{"namespaced scope, two namespaces, leader election, token auth", []string{
			"rbac.scope=namespaced", "rbac.watchNamespaces={team-a,team-b}", "replicaCount=2", "mcp.auth.mode=token", "mcp.auth.tokenSecret.name=t",
		},
			[]grant{
				delegator, accessReview,
				{Kind: "Role", Name: "team-a/cwac-cwac-operator-manager", Rules: manager},
				{Kind: "Role", Name: "team-b/cwac-cwac-operator-manager", Rules: manager},
				{Kind: "Role", Name: "rbac/cwac-cwac-operator-leader-election", Rules: leader},
			},
			[]grant{mcpRole}},
		{"MCP server off", []string{"mcp.enabled=false"},
			[]grant{delegator, {Kind: "ClusterRole", Name: "cwac-cwac-operator-manager", Rules: manager}},
			nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			objs := render(t, "rbac", tt.sets...)
			if diff := cmp.Diff(tt.operator, grantsOf(t, objs, "rbac", op)); diff != "" {
				t.Errorf("the operator's service account (-want +chart):\n%s", diff)
			}
			if diff := cmp.Diff(tt.mcpSA, grantsOf(t, objs, "rbac", mcpSA)); diff != "" {
				t.Errorf("the MCP server's service account (-want +chart):\n%s", diff)
			}
			// Every binding is to one of the two accounts.
			for _, b := range objs {
				if k := b.GetKind(); k == "RoleBinding" || k == "ClusterRoleBinding" {
					subj, _, _ := unstructured.NestedSlice(b.Object, "subjects")
					for _, s := range subj {
						if n := s.(map[string]any)["name"]; n != op && n != mcpSA {
							t.Errorf("%s %s binds %v", k, b.GetName(), n)
						}
					}
				}
			}
		})
	}
	cluster := render(t, "rbac")
	namespaced := render(t, "rbac", "rbac.scope=namespaced")
	// And the kustomize install grants the manager the same.
	kobjs := decode(t, run(t, filepath.Join(assets, "kubectl"), "kustomize", "../../config/default"))
	if diff := cmp.Diff(manager, rulesOf(t, find(kobjs, "ClusterRole", "manager-role"))); diff != "" {
		t.Errorf("kustomize manager rules differ from the markers:\n%s", diff)
	}
	// No wildcards anywhere.
	for _, objs := range [][]*unstructured.Unstructured{cluster, namespaced, kobjs} {
		for _, o := range objs {
			if o.GetKind() != "Role" && o.GetKind() != "ClusterRole" {
				continue
			}
			for _, r := range rulesOf(t, o) {
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

// The policy that records who changes organisation grants renders where
// the cluster serves MutatingAdmissionPolicy, named per release and bound
// to itself, and the API server accepts both objects; elsewhere, or when
// turned off, nothing renders.
func TestGrantChangedByPolicy(t *testing.T) {
	withAPI := func(sets ...string) []*unstructured.Unstructured {
		args := append([]string{"template", "cwac", "../../charts/cwac-operator", "--namespace", "grants", "--kube-version", "1.37.1",
			"--api-versions", "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy"}, setArgs(sets)...)
		return decode(t, run(t, helmBin(t), args...))
	}
	objs := withAPI()
	policy, binding := find(objs, "MutatingAdmissionPolicy", "-grant-changed-by"), find(objs, "MutatingAdmissionPolicyBinding", "-grant-changed-by")
	if policy == nil || binding == nil {
		t.Fatalf("rendered %v", kinds(objs))
	}
	if policy.GetName() != "cwac-cwac-operator-grant-changed-by" {
		t.Errorf("policy named %q", policy.GetName())
	}
	if name, _, _ := unstructured.NestedString(binding.Object, "spec", "policyName"); name != policy.GetName() {
		t.Errorf("the binding names policy %q, not %q", name, policy.GetName())
	}
	applyDryRun(t, []*unstructured.Unstructured{policy, binding})
	if objs := withAPI("grants.recordChangedBy=false"); find(objs, "MutatingAdmissionPolicy", "-grant-changed-by") != nil {
		t.Error("rendered with grants.recordChangedBy=false")
	}
	if objs := render(t, "grants"); find(objs, "MutatingAdmissionPolicy", "-grant-changed-by") != nil {
		t.Error("rendered for a cluster without MutatingAdmissionPolicy")
	}
}

// The policy that records who makes decisions renders where the cluster
// serves MutatingAdmissionPolicy, named per release, trusting the release's
// own MCP server account (and no other) to name whom it decides for; the
// API server accepts it.
func TestDecisionDecidedByPolicy(t *testing.T) {
	args := []string{"template", "cwac", "../../charts/cwac-operator", "--namespace", "agencies", "--kube-version", "1.37.1",
		"--api-versions", "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy", "--set", "mcp.serviceAccount.name=web-mcp"}
	objs := decode(t, run(t, helmBin(t), args...))
	policy, binding := find(objs, "MutatingAdmissionPolicy", "-decision-decided-by"), find(objs, "MutatingAdmissionPolicyBinding", "-decision-decided-by")
	if policy == nil || binding == nil {
		t.Fatalf("rendered %v", kinds(objs))
	}
	vars, _, _ := unstructured.NestedSlice(policy.Object, "spec", "variables")
	first, _ := vars[0].(map[string]any)
	if first["name"] != "mcpServer" || first["expression"] != "'system:serviceaccount:agencies:web-mcp'" {
		t.Errorf("the policy trusts %v, want the release's MCP server account", first)
	}
	name, _, _ := unstructured.NestedString(binding.Object, "spec", "policyName")
	if name != policy.GetName() || name != "cwac-cwac-operator-decision-decided-by" {
		t.Errorf("policy %q, binding names %q", policy.GetName(), name)
	}
	applyDryRun(t, []*unstructured.Unstructured{policy, binding})
	if objs := render(t, "agencies"); find(objs, "MutatingAdmissionPolicy", "-decision-decided-by") != nil {
		t.Error("rendered for a cluster without MutatingAdmissionPolicy")
	}
}
