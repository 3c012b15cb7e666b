//go:build integration

package controller

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// countingTransport counts the operator's requests to the API server.
type countingTransport struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Query().Get("watch") != "true" {
		c.n.Add(1)
	}
	return c.next.RoundTrip(r)
}

// reconciles is how many reconciles the scan controller has run in this process.
func reconciles(t *testing.T) float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var total float64
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			if label(m, "controller") == "cwacscan" {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// queueCost is the operator's work, per freed slot, with n scans queued.
type queueCost struct {
	queued               int
	idleRequests         int64
	reconcilesPerEvent   float64
	requestsPerEvent     float64
	createdToQueuedTotal time.Duration
}

// TestQueueWorkPerEventIsFlat: with a cap of 1 and n scans queued, a freed
// slot costs the operator the same reconciles and API requests whatever n
// is, and nothing happens while nothing changes. CWAC_QUEUE_SCANS sets the
// queue lengths (default 30,120; `make bench` measures 100,500,1000).
func TestQueueWorkPerEventIsFlat(t *testing.T) {
	sizes := []int{30, 120}
	if env := os.Getenv("CWAC_QUEUE_SCANS"); env != "" {
		fields := strings.Split(env, ",")
		sizes = make([]int, 0, len(fields))
		for _, f := range fields {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 2 {
				t.Fatalf("CWAC_QUEUE_SCANS: %q is not a queue length of at least 2", f)
			}
			sizes = append(sizes, n)
		}
	}
	costs := make([]queueCost, 0, len(sizes))
	for _, n := range sizes {
		costs = append(costs, measureQueue(t, n, 3))
	}
	t.Logf("%8s %14s %18s %18s %16s", "queued", "idle requests", "reconciles/event", "requests/event", "create+queue")
	for _, c := range costs {
		t.Logf("%8d %14d %18.1f %18.1f %16s", c.queued, c.idleRequests, c.reconcilesPerEvent, c.requestsPerEvent, c.createdToQueuedTotal.Round(time.Millisecond))
	}
	for _, c := range costs {
		if c.idleRequests != 0 {
			t.Errorf("%d queued scans: %d API requests while nothing changed (the queue polls)", c.queued, c.idleRequests)
		}
		// A freed slot: the finished scan (Job and pod events, its status
		// patch) and the next scan (its start). The bound does not depend on n.
		if c.reconcilesPerEvent > 8 || c.requestsPerEvent > 12 {
			t.Errorf("%d queued scans: %.1f reconciles and %.1f API requests per freed slot (want at most 8 and 12)", c.queued, c.reconcilesPerEvent, c.requestsPerEvent)
		}
	}
}

// measureQueue queues n scans behind one running scan under a cap of 1, then
// frees the slot `events` times, counting the operator's work per event.
func measureQueue(t *testing.T, n, events int) queueCost {
	t.Helper()
	clearEarlierTests(t)
	var requests atomic.Int64
	counted := rest.CopyConfig(cfg)
	counted.QPS, counted.Burst = 1000, 2000
	counted.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{next: rt, n: &requests} })
	stop := startManagerOn(t, counted, Options{JobOptions: testOpts, MaxConcurrentScans: 1, Policy: testPolicy()})
	defer stop()
	ns := newNamespace(t)

	start := time.Now()
	createScan(t, ns, "q-00000", simpleSpec())
	running := waitJob(t, ns, "q-00000")
	for i := 1; i <= n; i++ {
		createScan(t, ns, fmt.Sprintf("q-%05d", i), simpleSpec())
	}
	waitFor(t, fmt.Sprintf("%d scans queued", n), func() (bool, error) {
		list := &cwacv1alpha1.CwacScanList{}
		if err := k8s.List(ctxT(t), list, client.InNamespace(ns)); err != nil {
			return false, err
		}
		queued := 0
		for _, s := range list.Items {
			if s.Status.Phase == cwacv1alpha1.PhaseQueued {
				queued++
			}
		}
		return queued == n, fmt.Errorf("%d of %d queued", queued, n)
	})
	cost := queueCost{queued: n, createdToQueuedTotal: time.Since(start)}

	// Nothing changes: the operator must not talk to the API server at all.
	time.Sleep(500 * time.Millisecond) // let the last status patches land
	before := requests.Load()
	time.Sleep(3 * time.Second)
	cost.idleRequests = requests.Load() - before

	r0, q0 := reconciles(t), requests.Load()
	for i := 1; i <= events; i++ {
		startPod(t, running, terminatedStatus(0, "Completed", report(scanpod.Report{Outcome: scanpod.OutcomeComplete, Summary: realSummary(t)})))
		finishJob(t, running, true, "", "")
		running = waitJob(t, ns, fmt.Sprintf("q-%05d", i))
		waitPhase(t, ns, fmt.Sprintf("q-%05d", i-1), cwacv1alpha1.PhaseComplete)
	}
	time.Sleep(500 * time.Millisecond) // the last start's own events settle
	cost.reconcilesPerEvent = (reconciles(t) - r0) / float64(events)
	cost.requestsPerEvent = float64(requests.Load()-q0) / float64(events)
	// The next measurement must not count this one's running Job nor queue
	// behind its waiting scans.
	if err := k8s.DeleteAllOf(ctxT(t), &cwacv1alpha1.CwacScan{}, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if err := k8s.DeleteAllOf(ctxT(t), &batchv1.Job{}, client.InNamespace(ns), client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	return cost
}
