package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// operatorRequests keeps the operator's requests about objects of ns.
func operatorRequests(ns string) func(auditEvent) bool {
	return func(e auditEvent) bool {
		return e.User.Username == operatorUser && e.ObjectRef != nil && e.ObjectRef.Namespace == ns && e.Verb != "watch"
	}
}

// requestFigures runs `scans` scans through the operator at each cap
// (0: uncapped), with the stand-in Job controller, and counts the
// operator's requests from the API server's audit log: per scan, by kind,
// and the 409 Conflicts among them.
func requestFigures(ctx context.Context, api *apiServer, audit *auditLog, caps []int, scans int) error {
	user, err := api.env.AddUser(envtestOperator(), nil)
	if err != nil {
		return err
	}
	t := newTable(fmt.Sprintf("The operator's API requests over a scan's life (%d one-site scans created at once; audit log; stand-in Job controller)", scans),
		"cap", "requests per scan", "status patches", "Events", "Job+ConfigMap", "other", "409 Conflicts", "other errors", "wall")
	var breakdowns []string
	for _, limit := range caps {
		ns := fmt.Sprintf("requests-cap-%d", limit)
		if err := api.client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return err
		}
		stopOperator, err := startOperator(user.Config(), api, ns, limit)
		if err != nil {
			return err
		}
		stopStandIn, err := standIn(ctx, api, ns)
		if err != nil {
			stopOperator()
			return err
		}
		if err := audit.skip(); err != nil {
			return err
		}
		start := time.Now()
		err = createNamedScans(ctx, api.client, ns, scanNames("life", scans))
		if err == nil {
			err = waitScans(ctx, api.client, ns, scans, "finished", finished)
		}
		wall := time.Since(start)
		time.Sleep(3 * time.Second) // the last Events are sent
		stopStandIn()
		stopOperator()
		if err != nil {
			return err
		}
		events, err := audit.read(operatorRequests(ns))
		if err != nil {
			return err
		}
		kinds := map[string]int{}
		conflicts, failures := 0, 0
		for _, e := range events {
			kinds[e.Verb+" "+e.resource()]++
			switch c := e.code(); {
			case c == 409:
				conflicts++
			case c >= 400:
				failures++
			}
		}
		per := func(n int) string { return fmt.Sprintf("%.2f", float64(n)/float64(scans)) }
		statusPatches, eventCount, made := kinds["patch cwacscans/status"], kinds["create events"]+kinds["patch events"],
			kinds["create jobs"]+kinds["create configmaps"]
		capLabel := "uncapped"
		if limit > 0 {
			capLabel = fmt.Sprint(limit)
		}
		t.row(capLabel, per(len(events)), per(statusPatches), per(eventCount), per(made), per(len(events)-statusPatches-eventCount-made),
			fmt.Sprint(conflicts), fmt.Sprint(failures), wall.Round(100*time.Millisecond).String())
		keys := make([]string, 0, len(kinds))
		for k := range kinds {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s %s", k, per(kinds[k])))
		}
		breakdowns = append(breakdowns, fmt.Sprintf("  cap %s, per scan: %s", capLabel, strings.Join(parts, ", ")))
	}
	t.flush()
	for _, b := range breakdowns {
		fmt.Println(b)
	}
	return nil
}

// envtestOperator is the operator's user: its own name, so that the audit
// log tells its requests from the bench's.
func envtestOperator() envtest.User {
	return envtest.User{Name: operatorUser, Groups: []string{"system:masters"}}
}

// latencyFigures measures, uncapped, how long a scan waits from its create
// request to its Job's: for scans created one at a time on an idle
// operator, for a burst of `burst` scans created eight at a time, for the
// scans created one at a time right after the burst's last create
// returned, once the burst's Jobs are all made, and right after every
// burst scan is updated in a burst of its own (an annotation: events that
// need no work, which a new scan must not wait behind). Times are the API
// server's own (the audit log): the scan's create received, the Job's
// create answered.
func latencyFigures(ctx context.Context, api *apiServer, audit *auditLog, burst, each int, gap time.Duration) error {
	user, err := api.env.AddUser(envtestOperator(), nil)
	if err != nil {
		return err
	}
	const ns = "latency"
	if err := api.client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return err
	}
	stop, err := startOperator(user.Config(), api, ns, 0)
	if err != nil {
		return err
	}
	defer stop()
	// One scan first, not counted: the operator's informers and workers start.
	if err := api.client.Create(ctx, benchScan(ns, "warm-up")); err != nil {
		return err
	}
	hasJob := func(s *cwacv1alpha1.CwacScan) bool { return s.Status.JobName != "" }
	if err := waitScans(ctx, api.client, ns, 1, "the warm-up scan's Job", hasJob); err != nil {
		return err
	}
	if err := audit.skip(); err != nil {
		return err
	}
	oneByOne := func(names []string) error {
		for _, name := range names {
			if err := api.client.Create(ctx, benchScan(ns, name)); err != nil {
				return err
			}
			time.Sleep(gap)
		}
		return nil
	}
	groups := []struct {
		label string
		names []string
		run   func([]string) error
		wait  bool
	}{
		{fmt.Sprintf("%d scans one at a time, idle operator", each), scanNames("idle", each), oneByOne, true},
		{fmt.Sprintf("a burst of %d scans, eight at a time", burst), scanNames("burst", burst), func(n []string) error {
			return createNamedScans(ctx, api.client, ns, n)
		}, false},
		{fmt.Sprintf("%d scans one at a time, right after the burst", each), scanNames("after", each), oneByOne, true},
		{fmt.Sprintf("%d scans one at a time, once all have Jobs", each), scanNames("later", each), oneByOne, true},
		{fmt.Sprintf("%d scans one at a time, right after %d updates needing no work", each, burst), scanNames("quiet", each), func(n []string) error {
			if err := touchScans(ctx, api.client, ns, scanNames("burst", burst)); err != nil {
				return err
			}
			return oneByOne(n)
		}, true},
	}
	total := 1 // the warm-up scan
	for _, g := range groups {
		if err := g.run(g.names); err != nil {
			return err
		}
		total += len(g.names)
		if g.wait {
			if err := waitScans(ctx, api.client, ns, total, "Jobs made", hasJob); err != nil {
				return err
			}
		}
	}
	time.Sleep(time.Second)
	paths, err := createToJobPaths(ctx, api, audit, ns)
	if err != nil {
		return err
	}
	t := newTable("Create to Job, uncapped (API server's times: the scan's create received, the Job's create answered; "+
		"operator's own: less the API server's time answering the four writes on the way)",
		"scans", "p50", "p95", "max", "operator's own p50", "p95", "Jobs")
	steps := newTable("Create to Job step by step, p50 / p95 (the operator's steps end when the API server receives its request)",
		"scans", "to admission answered", "admission to ConfigMap asked", "ConfigMap answered", "to Job asked", "Job answered")
	pct := func(d []time.Duration, p int) time.Duration { return d[(len(d)*p+99)/100-1] }
	for _, g := range groups {
		var lat, own []time.Duration
		step := make([][]time.Duration, 5)
		for _, name := range g.names {
			p, ok := paths[name]
			if !ok || p.job.IsZero() {
				continue
			}
			lat = append(lat, p.job.Sub(p.created))
			own = append(own, p.job.Sub(p.created)-p.inServer)
			if !p.admitted.IsZero() && !p.configMapAsked.IsZero() && !p.jobAsked.IsZero() {
				for i, d := range []time.Duration{p.admitted.Sub(p.created), p.configMapAsked.Sub(p.admitted),
					p.configMapDone.Sub(p.configMapAsked), p.jobAsked.Sub(p.configMapDone), p.job.Sub(p.jobAsked)} {
					step[i] = append(step[i], d)
				}
			}
		}
		if len(lat) == 0 {
			t.row(g.label, "-", "-", "-", "-", "-", "0")
			continue
		}
		slices.Sort(lat)
		slices.Sort(own)
		t.row(g.label, ms(pct(lat, 50)), ms(pct(lat, 95)), ms(lat[len(lat)-1]), ms(pct(own, 50)), ms(pct(own, 95)), fmt.Sprint(len(lat)))
		cells := []string{g.label}
		for _, d := range step {
			if len(d) == 0 {
				cells = append(cells, "-")
				continue
			}
			slices.Sort(d)
			cells = append(cells, ms(pct(d, 50))+" / "+ms(pct(d, 95)))
		}
		steps.row(cells...)
	}
	t.flush()
	steps.flush()
	return nil
}

// createToJob is one scan's way from its create to its Job, from the
// audit log: its create received, its Job's create answered, and the time
// the API server spent answering the writes on the way (the scan's
// create, the admission's status patch, the ConfigMap and the Job): the
// rest is the operator's own (queues, watches, its work).
type createToJob struct {
	created, admitted, job                  time.Time
	configMapAsked, configMapDone, jobAsked time.Time
	inServer                                time.Duration
}

// createToJobPaths reads every scan's way to its Job in namespace ns from
// the audit log, since the last read.
func createToJobPaths(ctx context.Context, api *apiServer, audit *auditLog, ns string) (map[string]*createToJob, error) {
	events, err := audit.read(func(e auditEvent) bool { return e.ObjectRef != nil && e.ObjectRef.Namespace == ns && e.Verb != "watch" })
	if err != nil {
		return nil, err
	}
	jobs := &batchv1.JobList{}
	if err := api.client.List(ctx, jobs, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	scanOf := map[string]string{}
	for _, j := range jobs.Items {
		if ref := metav1.GetControllerOf(&j); ref != nil {
			scanOf[j.Name] = ref.Name
		}
	}
	paths := map[string]*createToJob{}
	path := func(scan string) *createToJob {
		if paths[scan] == nil {
			paths[scan] = &createToJob{}
		}
		return paths[scan]
	}
	admitted := map[string]bool{}
	for _, e := range events {
		name, spent := e.ObjectRef.Name, e.StageTimestamp.Sub(e.RequestReceived)
		switch {
		case e.Verb != "create" && e.resource() != "cwacscans/status":
		case name == "":
			return nil, fmt.Errorf("the audit log does not name created objects")
		case e.resource() == "cwacscans":
			p := path(name)
			p.created, p.inServer = e.RequestReceived, p.inServer+spent
		case e.resource() == "cwacscans/status":
			if e.User.Username == operatorUser && !admitted[name] && e.code() == 200 {
				admitted[name] = true
				p := path(name)
				p.admitted, p.inServer = e.StageTimestamp, p.inServer+spent
			}
		case e.resource() == "configmaps":
			p := path(scanOf[name])
			p.configMapAsked, p.configMapDone, p.inServer = e.RequestReceived, e.StageTimestamp, p.inServer+spent
		case e.resource() == "jobs" && e.code() == 201:
			p := path(scanOf[name])
			p.job, p.jobAsked, p.inServer = e.StageTimestamp, e.RequestReceived, p.inServer+spent
		}
	}
	return paths, nil
}
