//go:build integration

package controller

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
)

// managerChildEnv, set to a kubeconfig, makes the test binary run the
// operator's controllers alone against that API server, as cmd/manager
// wires them, until it is stopped: TestOperatorPeakRSS measures that
// process's memory without the test's own.
const managerChildEnv = "CWAC_TEST_MANAGER_CHILD_KUBECONFIG"

// runManagerChild is the child's whole life (TestMain calls it).
func runManagerChild(kubeconfig string) int {
	c, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	mgr, err := ctrl.NewManager(c, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{ByObject: CacheByObject(), NewInformer: NewInformer},
	})
	if err == nil {
		err = Setup(mgr, Options{JobOptions: testOpts, Policy: testPolicy()})
	}
	if err == nil {
		_, err = SetupMetrics(mgr, prometheus.NewRegistry())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := mgr.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// writeKubeconfig writes the envtest API server's client config to a file.
func writeKubeconfig(t *testing.T) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["envtest"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "envtest"}
	kc.CurrentContext = "envtest"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// memoryKiB reads VmRSS and VmHWM (the peak) of a process.
func memoryKiB(t *testing.T, pid int) (rss, peak int64) {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "VmRSS:":
			rss, _ = strconv.ParseInt(f[1], 10, 64)
		case "VmHWM:":
			peak, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	return rss, peak
}

// worstOverrides are configOverrides at every bound at once: 64 KiB,
// 4096 values, values nested 8 deep.
func worstOverrides(t *testing.T) map[string]apiextensionsv1.JSON {
	t.Helper()
	out := map[string]apiextensionsv1.JSON{}
	values, size := 0, 0
	for i := range 8 {
		v := strings.Repeat("[", cwacconfig.MaxOverrideDepth-1) + strings.TrimSuffix(strings.Repeat("[1],", 60), ",") +
			strings.Repeat("]", cwacconfig.MaxOverrideDepth-1)
		key := fmt.Sprintf("deep%d", i)
		out[key] = apiextensionsv1.JSON{Raw: []byte(v)}
		values += cwacconfig.MaxOverrideDepth - 1 + 120
		size += len(key) + len(v)
	}
	// Strings of 4000 bytes up to the size limit, then ones to the values limit.
	var long strings.Builder
	long.WriteString("[")
	for n := 0; size+len("long")+long.Len()+4003 < cwacconfig.MaxOverridesBytes-2*(cwacconfig.MaxOverrideValues-values); n++ {
		if n > 0 {
			long.WriteString(",")
		}
		long.WriteString(`"` + strings.Repeat("a", 4000) + `"`)
		values++
	}
	long.WriteString("]")
	values++
	out["long"] = apiextensionsv1.JSON{Raw: []byte(long.String())}
	size += len("long") + long.Len()
	wide := "[" + strings.TrimSuffix(strings.Repeat("1,", cwacconfig.MaxOverrideValues-values-1), ",") + "]"
	out["wide"] = apiextensionsv1.JSON{Raw: []byte(wide)}
	size += len("wide") + len(wide)
	if size > cwacconfig.MaxOverridesBytes || size < cwacconfig.MaxOverridesBytes-8<<10 {
		t.Fatalf("worst overrides take %d bytes, want just under %d", size, cwacconfig.MaxOverridesBytes)
	}
	return out
}

// TestOperatorPeakRSS measures the operator's peak resident memory (its
// process's VmHWM: the operator runs in a child process of its own) while
// it handles the worst CwacScans the API server accepts: eight with
// configOverrides nesting arrays 9,900 deep (issue 20: 785 MB each
// before the bounds), eight with overrides at every bound and 600 URLs of
// 2,000 characters (about 1.2 MB each, rendered then refused as too large
// for a ConfigMap), four at every bound that run, and two schedules
// holding the deep overrides in their template. The operator peaks near
// 83 MiB here, under its 128 MiB target; the test's bound, 256 MiB, is
// three times that, so it catches memory that grows with what a scan holds
// (6 GB before the bounds), never the machine's noise. The figure itself
// belongs to make bench.
func TestOperatorPeakRSS(t *testing.T) {
	const maxOperatorPeakKiB = 256 << 10
	if raceDetector {
		t.Skip("memory is bounded without the race detector: hack/test.sh runs this test again without -race")
	}
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), managerChildEnv+"="+writeKubeconfig(t))
	// The child's output goes to a file: exec copies it from another
	// goroutine, and the test reads it while the child still runs.
	out, err := os.Create(filepath.Join(t.TempDir(), "manager.log"))
	if err != nil {
		t.Fatal(err)
	}
	child.Stdout, child.Stderr = out, out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = child.Process.Signal(syscall.SIGTERM)
		_ = child.Wait()
		_ = out.Close()
	})
	ns := newNamespace(t)
	createScan(t, ns, "ready", simpleSpec())
	waitJob(t, ns, "ready") // the child's controllers are up
	rss0, peak0 := memoryKiB(t, child.Process.Pid)

	deep := map[string]apiextensionsv1.JSON{"filter_to_urls": {Raw: []byte(strings.Repeat("[", 9900) + strings.Repeat("]", 9900))}}
	worst := worstOverrides(t)
	var names []string
	add := func(name string, spec cwacv1alpha1.CwacScanSpec) {
		createScan(t, ns, name, spec)
		names = append(names, name)
	}
	for i := range 8 {
		add(fmt.Sprintf("deep-%d", i), cwacv1alpha1.CwacScanSpec{URLs: []string{"https://a.example/"}, ConfigOverrides: deep})
		add(fmt.Sprintf("large-%d", i), cwacv1alpha1.CwacScanSpec{URLs: manyURLs(600, 2000), ConfigOverrides: worst})
	}
	for i := range 4 {
		add(fmt.Sprintf("at-limits-%d", i), cwacv1alpha1.CwacScanSpec{URLs: []string{"https://a.example/"}, ConfigOverrides: worst})
	}
	for i := range 2 {
		sched := &cwacv1alpha1.CwacScanSchedule{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("deep-%d", i)},
			Spec: cwacv1alpha1.CwacScanScheduleSpec{Schedule: "@yearly", ScanTemplate: cwacv1alpha1.CwacScanTemplate{
				Spec: cwacv1alpha1.CwacScanSpec{URLs: []string{"https://a.example/"}, ConfigOverrides: deep},
			}},
		}
		if err := k8s.Create(ctxT(t), sched); err != nil {
			t.Fatalf("the API server refused the schedule: %v", err)
		}
	}
	start := time.Now()
	waitFor(t, "every scan decided", func() (bool, error) {
		for _, name := range names {
			s := getScan(t, ns, name)
			if s.Status.Phase != cwacv1alpha1.PhaseFailed && s.Status.JobName == "" {
				return false, fmt.Errorf("%s: phase %q", name, s.Status.Phase)
			}
		}
		return true, nil
	})
	decided := time.Since(start)
	for _, name := range names {
		s := getScan(t, ns, name)
		c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionFailed)
		switch {
		case strings.HasPrefix(name, "deep-"):
			if c == nil || !strings.Contains(c.Message, "nest deeper than the limit of 8 levels") {
				t.Errorf("%s: Failed = %+v, want the depth limit", name, c)
			}
		case strings.HasPrefix(name, "large-"):
			if c == nil || !strings.Contains(c.Message, "ConfigMap limit") {
				t.Errorf("%s: Failed = %+v, want too large for a ConfigMap", name, c)
			}
		default:
			if s.Status.JobName == "" {
				t.Errorf("%s at every bound did not start: %+v", name, c)
			}
		}
	}
	rss, peak := memoryKiB(t, child.Process.Pid)
	t.Logf("operator process: before the scans VmRSS %.1f MiB (peak %.1f MiB); after %d scans and 2 schedules, decided in %s: VmRSS %.1f MiB, peak VmHWM %.1f MiB",
		float64(rss0)/1024, float64(peak0)/1024, len(names), decided.Round(time.Millisecond), float64(rss)/1024, float64(peak)/1024)
	if peak > maxOperatorPeakKiB {
		t.Errorf("the operator's peak resident memory was %.1f MiB, over %d MiB\n%s", float64(peak)/1024, maxOperatorPeakKiB>>10, readLog(out.Name()))
	}
}

// readLog reads the child's log for a failure message.
func readLog(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return string(data)
}
