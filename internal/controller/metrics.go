package controller

import (
	"context"
	"crypto/tls"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/metrics"
)

// MetricsServerOptions are the operator's metrics endpoint options. Secure:
// HTTPS (a self-signed certificate unless certDir holds tls.crt and
// tls.key) with every request's bearer token checked by a TokenReview and
// its right to GET /metrics by a SubjectAccessReview (MetricsAuthFilter:
// 401 for a token the API server does not accept, 403 without the right,
// 503 when it cannot be asked); the operator's
// account needs create on tokenreviews and subjectaccessreviews (the
// chart binds it to system:auth-delegator), a scraper's account get on the
// non-resource URL /metrics (the chart's <release>-metrics-reader
// ClusterRole). Not secure: plain HTTP, open to whoever reaches the port
// (local development). HTTP/2 is off either way (HTTP/2 rapid-reset and
// stream-cancellation attacks).
func MetricsServerOptions(bindAddress string, secure bool, certDir string) metricsserver.Options {
	o := metricsserver.Options{
		BindAddress: bindAddress,
		TLSOpts:     []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }},
	}
	if secure {
		o.SecureServing = true
		o.FilterProvider = MetricsAuthFilter
		o.CertDir = certDir
	}
	return o
}

// SetupMetrics registers the CWAC metrics with reg (the manager's
// metrics.Registry in cmd/manager): gauges computed at scrape time from the
// manager's cache (the scans', the decisions'), and the scan histograms and counters fed by an event
// handler on the CwacScan informer. Both report on the elected leader only,
// so a standby replica's scrape counts nothing twice. The returned function
// unregisters them (tests that start several managers).
func SetupMetrics(mgr ctrl.Manager, reg prometheus.Registerer) (unregister func(), err error) {
	return SetupMetricsWith(mgr, reg, nil)
}

// SetupMetricsWith is SetupMetrics for a manager whose cache made its
// informers with informers.New (cmd/manager), whose stores the gauges
// read whichever way the operator watches; nil: as SetupMetrics.
func SetupMetricsWith(mgr ctrl.Manager, reg prometheus.Registerer, informers *Informers) (unregister func(), err error) {
	log := mgr.GetLogger().WithName("metrics")
	collector := &metrics.ScanCollector{
		List: func(ctx context.Context) ([]*cwacv1alpha1.CwacScan, error) {
			return cachedScans(ctx, mgr.GetCache(), informers)
		},
		Active: func() bool {
			select {
			case <-mgr.Elected():
				return true
			default:
				return false
			}
		},
		// The cache keeps little of a finished scan (finished_cache.go):
		// each stream's latest one is read whole, once per version.
		Summary: func(ctx context.Context, scan *cwacv1alpha1.CwacScan) (*cwacv1alpha1.ScanSummary, error) {
			whole, err := finishedScanDetails(ctx, mgr.GetAPIReader(), scan)
			if err != nil {
				return nil, err
			}
			return whole.Status.Summary, nil
		},
		OnError: func(err error) { log.Error(err, "reading CwacScans for the metrics") },
	}
	decisions := &metrics.DecisionCollector{
		List: func(ctx context.Context) ([]cwacv1alpha1.CwacIssueDecision, error) {
			var list cwacv1alpha1.CwacIssueDecisionList
			err := mgr.GetCache().List(ctx, &list)
			return list.Items, err
		},
		Active:  collector.Active,
		OnError: func(err error) { log.Error(err, "reading CwacIssueDecisions for the metrics") },
	}
	events := metrics.NewScanEvents()
	collectors := append([]prometheus.Collector{collector, decisions}, events.Collectors()...)
	var registered []prometheus.Collector
	unregister = func() {
		for _, c := range registered {
			reg.Unregister(c)
		}
	}
	for _, c := range collectors {
		if err := reg.Register(c); err != nil {
			unregister()
			return nil, fmt.Errorf("registering the CWAC metrics: %w", err)
		}
		registered = append(registered, c)
	}
	if err := mgr.Add(&scanObserver{mgr: mgr, events: events}); err != nil {
		unregister()
		return nil, err
	}
	return unregister, nil
}

// scanObserver feeds every CwacScan update the informer delivers to
// ScanEvents, on the leader only, from when it is elected until the
// manager stops. The informer's first list arrives as adds, which are not
// observed: scans that started or finished before are not counted again.
type scanObserver struct {
	mgr    ctrl.Manager
	events *metrics.ScanEvents
}

// NeedLeaderElection implements manager.LeaderElectionRunnable.
func (*scanObserver) NeedLeaderElection() bool { return true }

// Start implements manager.Runnable.
func (o *scanObserver) Start(ctx context.Context) error {
	informer, err := o.mgr.GetCache().GetInformer(ctx, &cwacv1alpha1.CwacScan{})
	if err != nil {
		return fmt.Errorf("the CwacScan informer for the metrics: %w", err)
	}
	handle, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj any) {
			old, _ := scanOf(oldObj)
			updated, _ := scanOf(newObj)
			o.events.Changed(old, updated)
		},
	})
	if err != nil {
		return fmt.Errorf("watching CwacScans for the metrics: %w", err)
	}
	<-ctx.Done()
	_ = informer.RemoveEventHandler(handle) // stopping: the informer goes too
	return nil
}

// cachedScans are the CwacScans of the informers' stores (those informers
// made, else the cache's one CwacScan informer), read and never changed: a
// scan not yet finished is the cached object itself, a finished one the
// CwacScan its compact record stands for (scanOf), made once. A scrape
// (every few seconds) thus neither deep-copies the scans nor copies each
// into a list, as the cache's List does. A cache with no store to read
// (one informer per namespace, with --watch-namespaces, not made by
// informers) is listed with copies: a list without them would have to hold
// the cache's own objects, and a finished scan's is not a CwacScan.
func cachedScans(ctx context.Context, c cache.Cache, informers *Informers) ([]*cwacv1alpha1.CwacScan, error) {
	stores, ok := informers.scanStores()
	if !ok {
		inf, err := c.GetInformer(ctx, &cwacv1alpha1.CwacScan{}, cache.BlockUntilSynced(false))
		if err != nil {
			return nil, err
		}
		if st, isStore := inf.(interface{ GetStore() toolscache.Store }); isStore && inf.HasSynced() {
			stores, ok = []toolscache.Store{st.GetStore()}, true
		}
	}
	if ok {
		lists, n := make([][]any, len(stores)), 0
		for i, st := range stores {
			lists[i] = st.List()
			n += len(lists[i])
		}
		out := make([]*cwacv1alpha1.CwacScan, 0, n)
		for _, items := range lists {
			for _, it := range items {
				if scan, isScan := scanOf(it); isScan {
					out = append(out, scan)
				}
			}
		}
		return out, nil
	}
	list := &cwacv1alpha1.CwacScanList{}
	if err := c.List(ctx, list); err != nil {
		return nil, err
	}
	out := make([]*cwacv1alpha1.CwacScan, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}
