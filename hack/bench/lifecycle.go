package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/controller"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/testutil/kubesim"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// operatorWorkers sets the in-process operator's --workers and
// --admission-workers (0: the operator's defaults).
var operatorWorkers = flag.Int("workers", 0, "the in-process operator's scan and admission workers (0: its defaults)")

// standInRun is how long a stand-in scan pod runs (-standin-run).
var standInRun = 100 * time.Millisecond

// publicResolver stands in for DNS: every name is a public address.
type publicResolver struct{}

func (publicResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("151.101.0.80")}, nil
}

// startOperator runs the operator's controllers in this process, as
// cmd/manager wires them, on cfg (the operator's own user), caching only ns.
func startOperator(cfg *rest.Config, api *apiServer, ns string, maxScans int) (stop func(), err error) {
	cfg = controller.RequestsInParallel(cfg) // as cmd/manager
	cfg.QPS = -1                             // as ctrl.GetConfig leaves it for cmd/manager: the API server's flow control, no client-side limit
	watches, err := controller.CacheHTTPClient(cfg)
	if err != nil {
		return nil, err
	}
	cacheOpts := cache.Options{
		ByObject: controller.CacheByObject(), NewInformer: controller.NewInformer, DefaultNamespaces: map[string]cache.Config{ns: {}}, HTTPClient: watches,
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: api.scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0", Cache: cacheOpts,
	})
	if err != nil {
		return nil, err
	}
	opts := scanjob.Options{ResultsPVC: "cwac-results", DefaultImage: "cwac:bench", RunnerImage: "cwac-operator:bench",
		CWACDir: "/cwac", ChromeExtraArgs: "--no-sandbox", Resources: scanjob.DefaultResources()}
	if err := controller.Setup(mgr, controller.Options{
		JobOptions: opts, MaxConcurrentScans: maxScans, SkipNameValidation: true, Workers: *operatorWorkers, AdmissionWorkers: *operatorWorkers,
		Policy: urlpolicy.New(urlpolicy.Config{Resolver: publicResolver{}}),
	}); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	// The informers' first lists are the operator's start, not any scan's:
	// the counts begin once they are done.
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		cancel()
		return nil, fmt.Errorf("the operator's cache did not sync: %v", <-done)
	}
	return func() {
		cancel()
		if err := <-done; err != nil {
			fmt.Fprintln(os.Stderr, "bench: operator:", err)
		}
	}, nil
}

// standIn plays the Job controller and the kubelet for the scan Jobs of a
// namespace (envtest runs neither): each new Job gets a pod whose CWAC
// container runs for standInRun and ends with a complete report, then the
// Job completes. Its requests are the bench's, not the operator's.
func standIn(ctx context.Context, api *apiServer, ns string) (stop func(), err error) {
	s, err := results.Summarize(realScan, results.Options{Duration: 31.5})
	if err != nil {
		return nil, err
	}
	report := string(scanpod.Encode(scanpod.Report{Outcome: scanpod.OutcomeComplete, ResultsDir: "2026-11-21_23-18-23_real-scan-1", Summary: s},
		scanpod.MaxBytes))
	jobs, err := cache.New(api.cfg, cache.Options{Scheme: api.scheme, DefaultNamespaces: map[string]cache.Config{ns: {}}})
	if err != nil {
		return nil, err
	}
	informer, err := jobs.GetInformer(ctx, &batchv1.Job{})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	play := func(job *batchv1.Job) {
		defer wg.Done()
		pod, err := kubesim.StartPod(ctx, api.client, job, kubesim.Running())
		if err == nil {
			time.Sleep(standInRun)
			err = kubesim.SetPodStatus(ctx, api.client, pod, kubesim.Terminated(0, "Completed", report))
		}
		if err == nil {
			err = kubesim.FinishJob(ctx, api.client, job, true, "", "")
		}
		if err != nil && ctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "bench: stand-in Job controller: %s: %v\n", job.Name, err)
		}
	}
	if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: func(o any) {
		if job, ok := o.(*batchv1.Job); ok && len(job.Status.Conditions) == 0 {
			wg.Add(1)
			go play(job.DeepCopy())
		}
	}}); err != nil {
		cancel()
		return nil, err
	}
	go func() { _ = jobs.Start(ctx) }()
	if !jobs.WaitForCacheSync(ctx) {
		cancel()
		return nil, fmt.Errorf("the stand-in Job controller's cache did not sync")
	}
	return func() { cancel(); wg.Wait() }, nil
}

// benchScan is a one-site scan as a person or a pipeline creates it.
func benchScan(ns, name string) *cwacv1alpha1.CwacScan {
	return &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: cwacv1alpha1.CwacScanSpec{URLs: []string{"https://www.example.govt.nz/"}}}
}

// createNamedScans creates the named scans, eight at a time.
func createNamedScans(ctx context.Context, c client.Client, ns string, names []string) error {
	return eightAtATime(names, func(name string) error { return c.Create(ctx, benchScan(ns, name)) })
}

// touchScans annotates each named scan, eight at a time: an update that
// every controller sees and none has work for (the scans have their Jobs).
func touchScans(ctx context.Context, c client.Client, ns string, names []string) error {
	patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"bench.cwac.a11y.dev/touched":"1"}}}`))
	return eightAtATime(names, func(name string) error {
		return c.Patch(ctx, &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, patch)
	})
}

// eightAtATime calls do for each name from eight goroutines and returns
// the first error (nil when none failed).
func eightAtATime(names []string, do func(name string) error) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(names))
	work := make(chan string)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range work {
				if err := do(name); err != nil {
					errs <- err
				}
			}
		}()
	}
	for _, name := range names {
		work <- name
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs
}

func scanNames(prefix string, n int) []string {
	names := make([]string, 0, n)
	for i := range n {
		names = append(names, fmt.Sprintf("%s-%05d", prefix, i))
	}
	return names
}

// waitScans waits until cond holds for every scan of ns (polled by the
// bench's own user, which the counts leave out).
func waitScans(ctx context.Context, c client.Client, ns string, n int, what string, cond func(*cwacv1alpha1.CwacScan) bool) error {
	deadline := time.Now().Add(waitLimit)
	for {
		list := &cwacv1alpha1.CwacScanList{}
		if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
			return err
		}
		done := 0
		for i := range list.Items {
			if cond(&list.Items[i]) {
				done++
			}
		}
		if done >= n {
			return nil
		}
		if time.Now().After(deadline) {
			phases := map[string]int{}
			for i := range list.Items {
				phases[string(list.Items[i].Status.Phase)]++
			}
			return fmt.Errorf("%s: %d of %d scans after %s (phases: %v)", what, done, n, waitLimit, phases)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitLimit bounds each wait for the operator.
var waitLimit = 10 * time.Minute

func finished(s *cwacv1alpha1.CwacScan) bool { return s.Status.Phase.Finished() }

// quietControllerLog keeps controller-runtime's log out of the figures
// (BENCH_LOG=1 shows it, on stderr).
func quietControllerLog() {
	out := io.Discard
	if os.Getenv("BENCH_LOG") != "" {
		out = os.Stderr
	}
	logf.SetLogger(zap.New(zap.WriteTo(out)))
}

// operatorOptions size the operator's figures.
type operatorOptions struct {
	memoryScans, caps  string
	scans, burst, each int
}

// operatorFigures starts a control plane with an audit log and measures
// the operator: its memory with finished scans, its requests per scan at
// each cap, and create-to-Job latency around a burst.
func operatorFigures(root, assets string, sections map[string]bool, op operatorOptions) error {
	quietControllerLog()
	if d, err := time.ParseDuration(os.Getenv("BENCH_WAIT")); err == nil {
		waitLimit = d
	}
	ctx := context.Background()
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	logPath, err := filepath.Abs(filepath.Join(root, "audit.log"))
	if err != nil {
		return err
	}
	api, err := startAPIServer(assets, logPath)
	if err != nil {
		return err
	}
	defer api.stop()
	audit := &auditLog{path: logPath}
	if sections["requests"] {
		caps, err := intList(op.caps)
		if err != nil {
			return fmt.Errorf("-request-caps: %w", err)
		}
		if err := requestFigures(ctx, api, audit, caps, op.scans); err != nil {
			return err
		}
	}
	if sections["latency"] {
		if err := latencyFigures(ctx, api, audit, op.burst, op.each, 20*time.Millisecond); err != nil {
			return err
		}
	}
	if sections["memory"] {
		sizes, err := intList(op.memoryScans)
		if err != nil {
			return fmt.Errorf("-memory-scans: %w", err)
		}
		if err := memoryFigures(ctx, api, root, sizes); err != nil {
			return err
		}
	}
	return nil
}

// intList parses "1,2,0".
func intList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a count", f)
		}
		out = append(out, n)
	}
	return out, nil
}
