//go:build integration

package controller

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

var (
	testEnv  *envtest.Environment
	cfg      *rest.Config
	k8s      client.Client
	scheme   = runtime.NewScheme()
	testOpts = scanjob.Options{
		ResultsPVC: "cwac-results", DefaultImage: "cwac:test", RunnerImage: "cwac-operator:test",
		CWACDir: "/cwac", ChromeExtraArgs: "--no-sandbox", Resources: scanjob.DefaultResources(),
	}
	startedAt = time.Now()
)

// envtestAssets finds the kube-apiserver, etcd and kubectl that
// hack/envtest-assets.sh provisions.
func envtestAssets() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	dir, err := filepath.Abs("../../bin/k8s/1.37.1-linux-amd64")
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, "kube-apiserver")); err != nil {
		return "", fmt.Errorf("envtest binaries not found in %s: run 'make envtest-assets' (or set KUBEBUILDER_ASSETS)", dir)
	}
	return dir, nil
}

func TestMain(m *testing.M) {
	if kubeconfig := os.Getenv(managerChildEnv); kubeconfig != "" {
		utilruntime.Must(clientgoscheme.AddToScheme(scheme))
		utilruntime.Must(cwacv1alpha1.AddToScheme(scheme))
		os.Exit(runManagerChild(kubeconfig))
	}
	logOut := io.Discard
	if os.Getenv("TEST_VERBOSE_LOGS") != "" {
		logOut = os.Stderr
	}
	logf.SetLogger(zap.New(zap.WriteTo(logOut), zap.UseDevMode(true)))
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cwacv1alpha1.AddToScheme(scheme))
	assets, err := envtestAssets()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
	}
	cfg, err = testEnv.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting envtest:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "envtest control plane started in %s\n", time.Since(startedAt).Round(time.Millisecond))
	k8s, err = client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := testEnv.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping envtest:", err)
	}
	os.Exit(code)
}

// startManager runs the operator's controller in-process, as cmd/manager
// wires it, until the returned stop function is called (or the test ends).
func startManager(t *testing.T, maxConcurrent int) (stop func()) {
	t.Helper()
	return startManagerWith(t, Options{JobOptions: testOpts, MaxConcurrentScans: maxConcurrent, Policy: testPolicy()})
}

// publicResolver stands in for DNS: every name resolves to a documentation
// address, except the names listed, which resolve where the test says.
type publicResolver map[string]string

func (r publicResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return []netip.Addr{netip.MustParseAddr("151.101.0.80")}, nil
}

// testPolicy is the default policy with name resolution stubbed.
func testPolicy() *urlpolicy.Policy {
	return urlpolicy.New(urlpolicy.Config{Resolver: publicResolver{"metadata.attacker.example": "169.254.169.254"}})
}

func startManagerWith(t *testing.T, o Options) (stop func()) {
	t.Helper()
	return startManagerOn(t, cfg, o)
}

// startManagerOn is startManagerWith on a given client config (e.g. one that
// counts requests).
func startManagerOn(t *testing.T, c *rest.Config, o Options) (stop func()) {
	t.Helper()
	o.SkipNameValidation = true
	mgr, err := ctrl.NewManager(c, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{ByObject: CacheByObject(), NewInformer: NewInformer},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := Setup(mgr, o); err != nil {
		t.Fatal(err)
	}
	return runManager(t, mgr)
}

// runManager starts mgr until the test ends or stop is called (once;
// later calls do nothing), failing the test if it stops with an error.
func runManager(t *testing.T, mgr ctrl.Manager) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("manager: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}
