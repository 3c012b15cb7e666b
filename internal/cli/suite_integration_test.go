//go:build integration

package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	corev1 "k8s.io/api/core/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// cluster is the envtest control plane, started by the first test that
// needs it (the unit tests of this package run without one).
type cluster struct {
	env   *envtest.Environment
	cfg   *rest.Config
	admin client.Client
	dir   string
	// adminKubeconfig authenticates with a client certificate of a member
	// of system:masters.
	adminKubeconfig string
}

var (
	clusterOnce sync.Once
	theCluster  *cluster
	clusterErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if theCluster != nil {
		if err := theCluster.env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping envtest:", err)
		}
		_ = os.RemoveAll(theCluster.dir)
	}
	os.Exit(code)
}

// envtestCluster starts (once) and returns the control plane; the
// binaries come from hack/envtest-assets.sh.
func envtestCluster(t *testing.T) *cluster {
	t.Helper()
	clusterOnce.Do(func() { theCluster, clusterErr = startCluster() })
	if clusterErr != nil {
		t.Fatal(clusterErr)
	}
	return theCluster
}

func startCluster() (*cluster, error) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		dir, err := filepath.Abs("../../bin/k8s/1.37.1-linux-amd64")
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(filepath.Join(dir, "kube-apiserver")); err != nil {
			return nil, fmt.Errorf("envtest binaries not found in %s: run 'make envtest-assets' (or set KUBEBUILDER_ASSETS)", dir)
		}
		assets = dir
	}
	c := &cluster{env: &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
	}}
	var err error
	if c.cfg, err = c.env.Start(); err != nil {
		return nil, fmt.Errorf("starting envtest: %w", err)
	}
	if c.admin, err = client.New(c.cfg, client.Options{Scheme: scheme}); err != nil {
		return nil, err
	}
	if c.dir, err = os.MkdirTemp("", "cli-envtest-"); err != nil {
		return nil, err
	}
	if c.adminKubeconfig, err = c.userKubeconfig("admin", "system:masters"); err != nil {
		return nil, err
	}
	for _, ns := range []string{"team-a", "team-b", defaultMCPNamespace} {
		if err := c.admin.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// userKubeconfig writes a kubeconfig of a user authenticated by a client
// certificate.
func (c *cluster) userKubeconfig(name string, groups ...string) (string, error) {
	u, err := c.env.AddUser(envtest.User{Name: name, Groups: groups}, nil)
	if err != nil {
		return "", err
	}
	data, err := u.KubeConfig()
	if err != nil {
		return "", err
	}
	path := filepath.Join(c.dir, name+".kubeconfig")
	return path, os.WriteFile(path, data, 0o600)
}

// authKubeconfig writes a kubeconfig for the cluster with the given user
// entry (a token, an exec plugin).
func (c *cluster) authKubeconfig(t *testing.T, name string, auth *clientcmdapi.AuthInfo) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: c.cfg.Host, CertificateAuthorityData: c.cfg.CAData}
	kc.AuthInfos[name] = auth
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: name}
	kc.CurrentContext = "envtest"
	path := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// grant gives a user or service account verbs on cwacscans in a namespace.
func (c *cluster) grant(t *testing.T, ns, name string, subject rbacv1.Subject, verbs ...string) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{cwacv1alpha1.GroupVersion.Group}, Resources: []string{"cwacscans"}, Verbs: verbs}}}
	if err := c.admin.Create(ctx, role); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}, Subjects: []rbacv1.Subject{subject}}
	if err := c.admin.Create(ctx, rb); err != nil {
		t.Fatal(err)
	}
}

// result is one run of the plugin.
type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs the plugin with a kubeconfig, as a user would.
func runCLI(ctx context.Context, o *Options, kubeconfig string, args ...string) result {
	return runCLIWith(ctx, o, &syncBuffer{}, kubeconfig, args...)
}

// runCLIWith is runCLI with an error stream the test can read while the
// command runs.
func runCLIWith(ctx context.Context, o *Options, errOut *syncBuffer, kubeconfig string, args ...string) result {
	var out bytes.Buffer
	o.Streams = genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: errOut}
	if o.Now == nil {
		o.Now = time.Now
	}
	code := Run(ctx, o, append([]string{"--kubeconfig", kubeconfig}, args...))
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// syncBuffer is a buffer written by the command and read by the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor returns once the buffer holds s.
func (b *syncBuffer) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(b.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("never written: %q; got:\n%s", s, b.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// setStatus writes a scan's status as the operator would.
func (c *cluster) setStatus(t *testing.T, ns, name string, mutate func(*cwacv1alpha1.CwacScanStatus)) {
	t.Helper()
	scan := &cwacv1alpha1.CwacScan{}
	if err := c.admin.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, scan); err != nil {
		t.Fatal(err)
	}
	mutate(&scan.Status)
	if err := c.admin.Status().Update(context.Background(), scan); err != nil {
		t.Fatal(err)
	}
}

// setCondition is meta.SetStatusCondition with the fields the CRD requires.
func setCondition(st *cwacv1alpha1.CwacScanStatus, typ string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg})
}

// createScan creates a scan directly (as another client would).
func (c *cluster) createScan(t *testing.T, ns, name string) {
	t.Helper()
	scan := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: cwacv1alpha1.CwacScanSpec{URLs: []string{"https://www.example.govt.nz/"}}}
	if err := c.admin.Create(context.Background(), scan); err != nil {
		t.Fatal(err)
	}
}
