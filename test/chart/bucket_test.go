//go:build integration

package chart

import (
	"flag"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/a11y-dev/cwac-operator/internal/objectstore"
)

// bucketSets keep the results in an in-cluster bucket with a key and a
// private authority, and leave both colocateWithOperator values at their
// default (true): a bucket needs no shared node.
var bucketSets = []string{
	"results.bucket.endpoint=http://minio.storage.svc:9000",
	"results.bucket.name=cwac-results",
	"results.bucket.region=eu-west-1",
	"results.bucket.prefix=team-a/results",
	"results.bucket.pathStyle=true",
	"results.bucket.credentialsSecret=bucket-creds",
	"results.bucket.caSecret=bucket-ca",
	"results.bucket.scratch=30Gi",
	`results.bucket.networkPolicy.to[0].namespaceSelector.matchLabels.kubernetes\.io/metadata\.name=storage`,
	"results.bucket.networkPolicy.to[0].podSelector.matchLabels.app=minio",
	"results.bucket.networkPolicy.ports[0].protocol=TCP",
	"results.bucket.networkPolicy.ports[0].port=9000",
	// Several MCP replicas: the bucket has no node, PostgreSQL no claim.
	"mcp.replicaCount=2", "store.dsnSecret.name=history-dsn",
}

// operatorBucketFlags are the manager's own bucket flags (the merge pods'
// Secrets and the scan pods' scratch): never the MCP server's.
var operatorBucketFlags = []string{
	"results-bucket-pod-credentials-secret", "results-bucket-pod-ca-secret", "results-bucket-merge-service-account", "results-bucket-scratch",
}

// bucketArgs parses a container's --results-bucket* arguments as the
// binaries do (objectstore.Config.Bind), with the manager's own flags when
// operator is true (an MCP argument of theirs is refused as unknown), and
// checks the configuration as the binaries do at start.
func bucketArgs(t *testing.T, args []string, operator bool) (objectstore.Config, map[string]string) {
	t.Helper()
	fs := flag.NewFlagSet("bucket", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var cfg objectstore.Config
	cfg.Bind(fs)
	own := map[string]*string{}
	if operator {
		for _, name := range operatorBucketFlags {
			own[name] = fs.String(name, "", "")
		}
	}
	var picked []string
	for _, a := range args {
		if strings.HasPrefix(a, "--results-bucket") {
			picked = append(picked, a)
		}
	}
	if err := fs.Parse(picked); err != nil {
		t.Errorf("bucket flags %v: %v", picked, err)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("bucket flags %v: %v", picked, err)
	}
	out := map[string]string{}
	for name, v := range own {
		out[name] = *v
	}
	return cfg, out
}

// secretMounted says whether the pod's first container mounts exactly
// these keys of the Secret, each as a file of its own name, read-only at dir.
func secretMounted(pod corev1.PodSpec, secret, dir string, keys ...string) bool {
	for _, v := range pod.Volumes {
		if v.Secret == nil || v.Secret.SecretName != secret || len(v.Secret.Items) != len(keys) {
			continue
		}
		for i, k := range keys {
			if v.Secret.Items[i].Key != k || v.Secret.Items[i].Path != k {
				return false
			}
		}
		for _, m := range pod.Containers[0].VolumeMounts {
			if m.Name == v.Name {
				return m.MountPath == dir && m.ReadOnly
			}
		}
	}
	return false
}

// checkNoResultsClaim: no results claim is rendered, neither pod mounts one,
// neither is tied to the operator's node, and the operator is given no
// claim to put in scan pods.
func checkNoResultsClaim(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	if pvc := find(objs, "PersistentVolumeClaim", "cwac-results"); pvc != nil {
		t.Errorf("results claim rendered with a bucket: %s", pvc.GetName())
	}
	for _, name := range []string{"manager", "mcp-server"} {
		_, dep := container(t, objs, name)
		_, pod := podSpec(t, dep)
		for _, v := range pod.Volumes {
			if v.Name == "results" || (v.PersistentVolumeClaim != nil && !strings.HasSuffix(v.PersistentVolumeClaim.ClaimName, "-history")) {
				t.Errorf("%s pod mounts %+v with a bucket", name, v)
			}
		}
		for _, m := range pod.Containers[0].VolumeMounts {
			if m.MountPath == "/results" {
				t.Errorf("%s mounts /results with a bucket", name)
			}
		}
		if pod.Affinity != nil {
			t.Errorf("%s pod has affinity %+v with a bucket", name, pod.Affinity)
		}
	}
	for _, a := range args(t, objs, "manager") {
		if strings.HasPrefix(a, "--results-pvc") || strings.HasPrefix(a, "--scan-affinity") {
			t.Errorf("the operator is given %s with a bucket", a)
		}
	}
	if hasArgPrefix(args(t, objs, "mcp-server"), "--results-root") {
		t.Errorf("the MCP server is given --results-root with a bucket: %v", args(t, objs, "mcp-server"))
	}
}

// checkBucket: with a bucket, both binaries get the same bucket flags,
// which they parse and accept, and its Secrets mounted read-only where the
// flags say; the operator alone gets the merge pods' Secrets and the scan
// pods' scratch; nothing of the results claim is left; the MCP server runs
// two replicas anywhere; scan pods may reach the bucket's peers.
func checkBucket(t *testing.T, objs []*unstructured.Unstructured) {
	want := objectstore.Config{
		Endpoint: "http://minio.storage.svc:9000", Bucket: "cwac-results", Region: "eu-west-1", Prefix: "team-a/results", PathStyle: true,
		CAFile: "/bucket-ca/ca.crt", CredentialsDir: "/bucket-credentials",
	}
	opCfg, own := bucketArgs(t, args(t, objs, "manager"), true)
	mcpCfg, _ := bucketArgs(t, args(t, objs, "mcp-server"), false)
	if diff := cmp.Diff(want, opCfg); diff != "" {
		t.Errorf("the operator's bucket (-want +chart):\n%s", diff)
	}
	if diff := cmp.Diff(want, mcpCfg); diff != "" {
		t.Errorf("the MCP server's bucket (-want +chart):\n%s", diff)
	}
	wantOwn := map[string]string{
		"results-bucket-pod-credentials-secret": "bucket-creds", "results-bucket-pod-ca-secret": "bucket-ca", "results-bucket-scratch": "30Gi",
		"results-bucket-merge-service-account": "",
	}
	if diff := cmp.Diff(wantOwn, own); diff != "" {
		t.Errorf("the operator's own bucket flags (-want +chart):\n%s", diff)
	}
	for _, name := range []string{"manager", "mcp-server"} {
		_, dep := container(t, objs, name)
		_, pod := podSpec(t, dep)
		if !secretMounted(pod, "bucket-creds", "/bucket-credentials", objectstore.AccessKeyFile, objectstore.SecretKeyFile) ||
			!secretMounted(pod, "bucket-ca", "/bucket-ca", "ca.crt") {
			t.Errorf("%s: the bucket's Secrets are not mounted read-only where the flags name them: %+v %+v",
				name, pod.Volumes, pod.Containers[0].VolumeMounts)
		}
	}
	checkNoResultsClaim(t, objs)
	if k := kinds(objs)["PersistentVolumeClaim"]; len(k) != 0 {
		t.Errorf("claims rendered with a bucket and PostgreSQL: %v", k)
	}
	_, mcpDep := container(t, objs, "mcp-server")
	_, mcpPod := podSpec(t, mcpDep)
	checkMCPHardened(t, mcpPod)
	if r, _, _ := unstructured.NestedFieldNoCopy(mcpDep.Object, "spec", "replicas"); fmt.Sprint(r) != "2" {
		t.Errorf("MCP replicas %v, want 2", r)
	}
	bucketRule := networkingv1.NetworkPolicyEgressRule{
		To: []networkingv1.NetworkPolicyPeer{{
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "storage"}},
			PodSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "minio"}},
		}},
		Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(9000))}},
	}
	checkBucketEgress(t, objs, &bucketRule)
	// Merge pods reach the bucket's peers, and nothing else but DNS.
	checkRunnerPodsPolicy(t, objs, []networkingv1.NetworkPolicyEgressRule{dnsEgress, bucketRule})
}

// checkBucketWorkloadIdentity: a bucket with neither Secret signs in with
// the platform's credentials: no credentials or CA flag or volume, the
// default scratch, no egress rule of its own; the history keeps its claim.
// Merge pods run as an account of their own, made with workload
// identity's annotation and no token, which scan pods never run as.
func checkBucketWorkloadIdentity(t *testing.T, objs []*unstructured.Unstructured) {
	want := objectstore.Config{Endpoint: "https://s3.eu-west-1.amazonaws.com", Bucket: "cwac-results"}
	opCfg, own := bucketArgs(t, args(t, objs, "manager"), true)
	mcpCfg, _ := bucketArgs(t, args(t, objs, "mcp-server"), false)
	if opCfg != want || mcpCfg != want {
		t.Errorf("bucket: operator %+v, MCP server %+v, want %+v", opCfg, mcpCfg, want)
	}
	if diff := cmp.Diff(map[string]string{
		"results-bucket-pod-credentials-secret": "", "results-bucket-pod-ca-secret": "", "results-bucket-scratch": "20Gi",
		"results-bucket-merge-service-account": "cwac-cwac-operator-merge",
	}, own); diff != "" {
		t.Errorf("the operator's own bucket flags (-want +chart):\n%s", diff)
	}
	sa := find(objs, "ServiceAccount", "-merge")
	if sa == nil || sa.GetName() != "cwac-cwac-operator-merge" ||
		sa.GetAnnotations()["eks.amazonaws.com/role-arn"] != "arn:aws:iam::111122223333:role/cwac-results" ||
		sa.Object["automountServiceAccountToken"] != false {
		t.Errorf("merge pods' service account %v, want one annotated for workload identity, with no token", sa)
	}
	if !slices.Contains(args(t, objs, "manager"), "--scan-service-account=cwac-scans") {
		t.Errorf("scan pods' service account not passed: %v", args(t, objs, "manager"))
	}
	_, opDep := container(t, objs, "manager")
	if _, op := podSpec(t, opDep); len(op.Volumes) != 0 || len(op.Containers[0].VolumeMounts) != 0 {
		t.Errorf("operator volumes %+v with workload identity", op.Volumes)
	}
	_, mcpDep := container(t, objs, "mcp-server")
	if _, pod := podSpec(t, mcpDep); len(pod.Volumes) != 2 || pod.Volumes[0].Name != "compare-scratch" || pod.Volumes[1].Name != "history" {
		t.Errorf("MCP volumes %+v, want the compare scratch and the history's claim alone", pod.Volumes)
	} else {
		checkMCPCompareScratch(t, pod, "1Gi")
	}
	checkNoResultsClaim(t, objs)
	if find(objs, "PersistentVolumeClaim", "-history") == nil {
		t.Error("the history's claim is gone with a bucket")
	}
	checkBucketEgress(t, objs, nil)
	// A public endpoint: merge pods reach DNS and public addresses.
	checkRunnerPodsPolicy(t, objs, []networkingv1.NetworkPolicyEgressRule{dnsEgress, publicEgress(t, objs)})
}

// checkBucketEgress: the scan pods' policy has DNS, public addresses and,
// when want is set, that rule for the bucket, last.
func checkBucketEgress(t *testing.T, objs []*unstructured.Unstructured, want *networkingv1.NetworkPolicyEgressRule) {
	t.Helper()
	o := find(objs, "NetworkPolicy", "-scans")
	if o == nil {
		t.Fatal("no scan NetworkPolicy")
	}
	data, _ := yaml.Marshal(o.Object)
	var np networkingv1.NetworkPolicy
	if err := yaml.Unmarshal(data, &np); err != nil {
		t.Fatal(err)
	}
	egress := np.Spec.Egress
	if want == nil {
		if len(egress) != 2 {
			t.Errorf("egress %+v, want DNS and public addresses only", egress)
		}
		return
	}
	if len(egress) != 3 {
		t.Fatalf("egress %+v, want DNS, public addresses and the bucket", egress)
	}
	if diff := cmp.Diff(*want, egress[2]); diff != "" {
		t.Errorf("the bucket's egress rule (-want +chart):\n%s", diff)
	}
}

// TestChartRefusesHalfConfiguredBucket: a bucket the binaries would refuse
// at start is refused by helm, naming the value.
func TestChartRefusesHalfConfiguredBucket(t *testing.T) {
	const endpoint, name = "results.bucket.endpoint=https://s3.eu-west-1.amazonaws.com", "results.bucket.name=cwac-results"
	for _, tt := range []struct {
		sets []string
		want string
	}{
		{[]string{endpoint}, "at '/results/bucket/name'"},
		{[]string{"results.bucket.endpoint=https://s3.eu-west-1.amazonaws.com/cwac-results", name}, "at '/results/bucket/endpoint'"},
		{[]string{"results.bucket.endpoint=s3.eu-west-1.amazonaws.com", name}, "at '/results/bucket/endpoint'"},
		{[]string{endpoint, "results.bucket.name=Results_Bucket"}, "at '/results/bucket/name'"},
		{[]string{endpoint, name, "results.bucket.prefix=team/../other"}, "at '/results/bucket/prefix'"},
		{[]string{endpoint, name, "results.bucket.prefix=/team"}, "at '/results/bucket/prefix'"},
		{[]string{endpoint, name, "results.bucket.scratch=lots"}, "at '/results/bucket/scratch'"},
		// Ports with no peer would open them to every address.
		{[]string{endpoint, name, "results.bucket.networkPolicy.ports[0].port=9000"}, "at '/results/bucket/networkPolicy/to'"},
		// The bucket's identity is never the scan pods'.
		{[]string{endpoint, name, "scans.serviceAccountName=cwac-scans", "results.bucket.mergeServiceAccount.name=cwac-scans"},
			`results.bucket.mergeServiceAccount.name "cwac-scans" is also the scan pods' service account`},
		{[]string{endpoint, name, "results.bucket.mergeServiceAccount.name=Merge_Pods"}, "at '/results/bucket/mergeServiceAccount/name'"},
		// The history's own rule stays: SQLite is one pod's file.
		{[]string{endpoint, name, "mcp.replicaCount=2"}, "mcp.replicaCount 2 needs the PostgreSQL store"},
	} {
		a := append([]string{"template", "cwac", "../../charts/cwac-operator", "--kube-version", "1.37.1"}, setArgs(tt.sets)...)
		out, err := exec.Command(helmBin(t), a...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), tt.want) {
			t.Errorf("%v: err %v, want %q in\n%s", tt.sets, err, tt.want, out)
		}
	}
}
