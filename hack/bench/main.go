// Command bench measures the results read path on generated data and prints
// the figures beside in-run baselines, as ratios, so that a regression shows
// whatever the machine: `make bench`. It generates its data under bin/bench
// (a 1M-row axe CSV and 1,000 result directories, all made from the real
// CWAC run in testdata/cwac-results), starts a local control plane
// (envtest) for cwac_list_scans, a real S3 server (SeaweedFS, $SEAWEEDFS)
// for the results bucket's upload and download, and runs the controller's
// queue cost test with CWAC_QUEUE_SCANS set. It asserts nothing: timings
// never fail a build.
//
// Run it from the repository root.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/hack/bench/binarycase"
	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
)

// caseWC is the real wc -l, run beside the read cases when there is one.
const caseWC = "wc -l"

// caseRunnerBinary is readcase's case that runs the cwac-runner binary;
// caseRunnerBinaryPages runs it on the same rows a few to a page
// (dataset.pagesDir).
const (
	caseRunnerBinary      = "runner-binary"
	caseRunnerBinaryPages = "runner-binary-pages"
)

// listProfile is where to write the cached cwac_list_scans calls' CPU profile ("" for none).
var listProfile string

func main() {
	var (
		root, assets, queue, only, scans string
		rows, runs, calls                int
	)
	flag.StringVar(&root, "data", "bin/bench", "where the generated data lives (ignored by git)")
	flag.IntVar(&rows, "rows", 1_000_000, "rows of the generated axe_core_audit.csv")
	flag.StringVar(&scans, "scans", "100,10000", "CwacScans (each with its result directory) cwac_list_scans is measured with")
	flag.IntVar(&runs, "runs", 3, "runs of each whole-file read (the median is shown, the largest peak memory)")
	flag.IntVar(&calls, "calls", 40, "calls of each tool measured")
	flag.StringVar(&assets, "envtest-assets", "bin/k8s/1.37.1-linux-amd64", "kube-apiserver and etcd for cwac_list_scans")
	flag.StringVar(&only, "only", "reads,results,list,bucket,queue,history,dashboard,memory,requests,latency", "the sections to run")
	var op operatorOptions
	flag.StringVar(&op.memoryScans, "memory-scans", "100,1000,10000", "finished scans the manager's memory is measured with")
	flag.StringVar(&op.caps, "request-caps", "1,2,0", "concurrency caps the requests per scan are counted at (0: uncapped)")
	flag.IntVar(&op.scans, "request-scans", 100, "scans run at each cap")
	flag.IntVar(&op.burst, "burst", 1000, "scans created in the burst of the create-to-Job figures")
	flag.IntVar(&op.each, "latency-scans", 200, "scans created one at a time in each of the create-to-Job figures' other groups")
	flag.DurationVar(&standInRun, "standin-run", standInRun, "how long a stand-in scan pod runs in the requests figures")
	var hist historyOptions
	flag.IntVar(&hist.orgs, "history-orgs", 1000, "organisations in the issue-history read figures")
	flag.IntVar(&hist.scans, "history-scans", 156, "weekly scans in the issue-history read figures")
	flag.IntVar(&hist.calls, "history-calls", 200, "calls of each issue-history query measured")
	flag.BoolVar(&hist.noPostgres, "history-no-postgres", false, "measure the issue history on SQLite only")
	var dash dashboardOptions
	flag.IntVar(&dash.orgs, "dashboard-orgs", 1000, "organisations in the dashboard's store")
	flag.IntVar(&dash.scans, "dashboard-scans", 156, "weekly scans in the dashboard's store")
	flag.IntVar(&dash.calls, "dashboard-calls", 100, "requests of each dashboard page measured")
	flag.StringVar(&listProfile, "list-cpuprofile", "", "write a CPU profile of the cached cwac_list_scans calls to this file")
	flag.StringVar(&queue, "queue", "100,500,1000", "queue lengths for the controller's queue cost test (\"\" skips it)")
	flag.Parse()
	sections := map[string]bool{}
	for _, s := range strings.Split(only, ",") {
		sections[strings.TrimSpace(s)] = true
	}
	if queue == "" {
		sections["queue"] = false
	}
	listSizes, err := intList(scans)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: -scans:", err)
		os.Exit(2)
	}
	if op.each < 1 || op.burst < 1 {
		fmt.Fprintln(os.Stderr, "bench: -latency-scans and -burst must be at least 1")
		os.Exit(2)
	}
	if err := run(newDataset(root, rows), listSizes, runs, calls, assets, queue, sections, hist, dash, op); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// table prints rows of figures with their ratio to a baseline.
type table struct {
	w *tabwriter.Writer
}

func newTable(title string, columns ...string) *table {
	fmt.Printf("\n%s\n", title)
	t := &table{w: tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', tabwriter.AlignRight)}
	t.row(columns...)
	return t
}

// row writes one row; a failed write to stdout has nowhere to be reported.
func (t *table) row(cells ...string) { _, _ = fmt.Fprintln(t.w, strings.Join(cells, "\t")+"\t") }
func (t *table) flush()              { _ = t.w.Flush() }

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
func ratio(a, b time.Duration) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", float64(a)/float64(b))
}

func run(d *dataset, listSizes []int, runs, calls int, assets, queue string, sections map[string]bool, hist historyOptions,
	dash dashboardOptions, op operatorOptions) error {
	start := time.Now()
	// The dashboard's section generates its own store and needs none of
	// the big files; the queue's needs none either.
	if slices.ContainsFunc([]string{"reads", "results", "list", "bucket", "history", "memory", "requests", "latency"},
		func(s string) bool { return sections[s] }) {
		if err := d.ensure(); err != nil {
			return fmt.Errorf("generating data: %w", err)
		}
	}
	fmt.Printf("bench: %d-row axe CSV, %d runs, %d calls each; %s\n", d.rows, runs, calls, time.Now().Format(time.RFC3339))
	var fullRead time.Duration
	if sections["reads"] {
		reads, err := readFigures(d, runs)
		if err != nil {
			return err
		}
		fullRead = reads["csv"].wall
	}
	if sections["results"] || sections["list"] {
		quietControllerLog()
		ctx := context.Background()
		api, err := startAPIServer(assets, "")
		if err != nil {
			return err
		}
		defer api.stop()
		if sections["results"] {
			if err := resultsFigures(ctx, d, calls, fullRead, api.client); err != nil {
				return err
			}
		}
		if sections["list"] {
			if err := listFigures(ctx, d, listSizes, calls, api); err != nil {
				return err
			}
		}
	}
	if sections["bucket"] {
		if err := bucketFigures(d); err != nil {
			return fmt.Errorf("bucket figures: %w", err)
		}
	}
	if sections["memory"] || sections["requests"] || sections["latency"] {
		if err := operatorFigures(d.root, assets, sections, op); err != nil {
			return err
		}
	}
	if sections["queue"] {
		if err := queueFigures(queue); err != nil {
			return err
		}
	}
	if sections["history"] {
		if err := historyFigures(d, hist); err != nil {
			return err
		}
	}
	if sections["dashboard"] {
		if err := dashboardFigures(d, dash); err != nil {
			return err
		}
	}
	fmt.Printf("\nbench: done in %s\n", time.Since(start).Round(time.Second))
	return nil
}

// buildTool builds a package of the tools' module (pkg is relative to hack/,
// such as ./bench/readcase) into out. The tools under hack/ are a module of
// their own (hack/go.mod), so go builds them from hack/ (-C, from the
// repository root the bench runs in), and out is made absolute for it.
func buildTool(out, pkg string) error {
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	build := exec.Command("go", "build", "-C", "hack", "-o", abs, pkg)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	return build.Run()
}

// buildProduct builds one of the product's binaries (pkg, such as
// ./cmd/cwac-runner, of the repository's own module) into out as the
// image has it (make image-tar): static, stripped, without build paths.
func buildProduct(out, pkg string) error {
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", abs, pkg)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	return build.Run()
}

// readFigures runs each whole-file read in its own process on one core.
// Its ratios are of CPU time: on a shared machine a wall also counts the
// waits for a core.
func readFigures(d *dataset, runs int) (map[string]processFigure, error) {
	readcase := filepath.Join(d.root, "readcase")
	if err := buildTool(readcase, "./bench/readcase"); err != nil {
		return nil, fmt.Errorf("building readcase: %w", err)
	}
	runnerBin := filepath.Join(d.root, "cwac-runner")
	if err := buildProduct(runnerBin, "./cmd/cwac-runner"); err != nil {
		return nil, fmt.Errorf("building cwac-runner: %w", err)
	}
	t := newTable(fmt.Sprintf("Reading the %d-row CSV (own process, GOMAXPROCS=1, median of %d)", d.rows, runs),
		"case", "wall", "CPU", "peak RSS", "CPU ÷ encoding/csv", "CPU ÷ read floor", "CPU ÷ comma floor", "CPU ÷ wc -l", "answer")
	figures := map[string]processFigure{}
	// The runner goes first: it writes the row index the tools use below.
	// The comparison reads the ids the runner wrote, before the decided
	// cases write others.
	order := []string{"runner", caseRunnerBinary, caseRunnerBinaryPages, "floor", "commas", "csv", "rows", "ids", "ids-summary", "summary", "walk",
		"compare", "compare-in-memory", "runner-compared",
		"runner-decided-rules", "runner-decided-pages"}
	for _, name := range order {
		all := make([]processFigure, 0, runs)
		for range runs {
			readName, dir, env := name, d.bigDir, []string(nil)
			switch name { // CWAC's files alone, as CWAC leaves them
			case caseRunnerBinary:
				dir, env = d.rawDir, []string{binarycase.RunnerEnv + "=" + runnerBin}
			case caseRunnerBinaryPages:
				readName, dir, env = caseRunnerBinary, d.pagesDir, []string{binarycase.RunnerEnv + "=" + runnerBin}
			}
			f, err := runCase(readcase, readName, dir, env...)
			if err != nil {
				return nil, err
			}
			all = append(all, f)
		}
		figures[name] = median(all)
	}
	if f, err := runWC(d.bigDir); err == nil {
		figures[caseWC] = f
		order = append([]string{caseWC}, order...)
	}
	labels := map[string]string{
		caseWC: "wc -l", "floor": "read floor (64 KiB reads, count lines)",
		"commas": "comma floor (64 KiB reads, find each comma)", "csv": "bare encoding/csv loop (baseline)",
		"rows":        "the results' reader alone (one Walk, rows counted)",
		"ids":         "the issues' ids alone (one Walk, each issue row's id)",
		"ids-summary": "the ids and results.Summarize's summary in one Walk",
		"summary":     "results.Summarize", "runner": "runner after CWAC (summary, row index, reports)",
		caseRunnerBinary:       "the cwac-runner binary after a stand-in CWAC (its own process, peak included)",
		caseRunnerBinaryPages:  "the same binary, the same rows a few to a page as the real run has them",
		"walk":                 "one Walk: summary and row index, no report",
		"compare":              "comparison with a baseline (the scan with itself)",
		"runner-compared":      "runner with a baseline: the comparison, then the walk and reports",
		"compare-in-memory":    "the same comparison in memory (as cwac_compare_scans)",
		"runner-decided-rules": "runner, a decision about each rule of the organisation",
		"runner-decided-pages": "runner, 1,000 page-prefix decisions of one rule",
	}
	for _, name := range order {
		f := figures[name]
		rss := "-"
		if f.rssMiB > 0 {
			rss = fmt.Sprintf("%.1f MiB", f.rssMiB)
		}
		byWC := "-"
		if wc, ok := figures[caseWC]; ok {
			byWC = ratio(f.cpu, wc.cpu)
		}
		t.row(labels[name], ms(f.wall), ms(f.cpu), rss,
			ratio(f.cpu, figures["csv"].cpu), ratio(f.cpu, figures["floor"].cpu), ratio(f.cpu, figures["commas"].cpu), byWC, f.answer)
	}
	t.flush()
	return figures, nil
}

// median is the run of median wall time, with the largest peak RSS of all.
func median(all []processFigure) processFigure {
	slices.SortFunc(all, func(a, b processFigure) int { return int(a.wall - b.wall) })
	m := all[len(all)/2]
	for _, f := range all {
		m.rssMiB = max(m.rssMiB, f.rssMiB)
	}
	return m
}

// resultsFigures calls cwac_get_results on the big results, with and
// without the row index, against the cost of the full read every call
// made before (the bare encoding/csv loop).
func resultsFigures(ctx context.Context, d *dataset, calls int, fullRead time.Duration, c client.Client) error {
	session, err := mcpSession(ctx, mcpserver.Config{Client: c, Namespace: benchNamespace, ResultsRoot: d.root + "/big"})
	if err != nil {
		return err
	}
	defer func() { _ = session.Close() }()
	indexed, raw := "2026-11-21_23-18-23_big", "2026-11-21_23-18-24_raw"
	page := func(id string, offset int, more ...any) map[string]any {
		args := map[string]any{"scan_id": id, "limit": 100, "offset": offset}
		for i := 0; i+1 < len(more); i += 2 {
			args[more[i].(string)] = more[i+1]
		}
		return args
	}
	cases := []struct {
		label string
		args  map[string]any
		calls int
	}{
		{"row index: limit=100", page(indexed, 0), calls},
		{"row index: limit=100 offset=900000", page(indexed, 900_000), calls},
		{"row index: critical issues, offset=100000", page(indexed, 100_000, "impact", "critical", "issues_only", true), calls},
		{"no index: limit=100", page(raw, 0), calls},
		{"no index: limit=100 offset=500000", page(raw, 500_000), 3},
	}
	t := newTable(fmt.Sprintf("cwac_get_results on %d rows (in-process MCP, %d calls)", d.rows, calls),
		"case", "p50", "p95", "÷ full read (encoding/csv)", "total_results")
	for _, c := range cases {
		var total string
		lat, err := measure(c.calls, func() error {
			out, err := callTool(ctx, session, "cwac_get_results", c.args)
			if err == nil {
				total = fmt.Sprintf("%.0f", out["total_results"]) // a JSON number
				if out["total_is_lower_bound"] == true {
					total = "at least " + total
				}
			}
			return err
		})
		if err != nil {
			return err
		}
		t.row(c.label, ms(lat.p50), ms(lat.p95), ratio(lat.p50, fullRead), total)
	}
	t.flush()
	return nil
}

// listFigures calls cwac_list_scans with n CwacScans, each with its
// results directory, for each n: with the scans listed from the API server
// and from the informer's cache, against a bare LIST of the scans. The
// cached calls' CPU (the whole process's: the tool, the in-memory MCP
// client, the cache) is what a call costs the server, and its ratio to the
// first size says whether that grows with the number of scans.
func listFigures(ctx context.Context, d *dataset, sizes []int, calls int, api *apiServer) error {
	t := newTable(fmt.Sprintf("cwac_list_scans, limit 50 (in-process MCP, envtest API server, %d calls)", calls),
		"scans", "case", "p50", "p95", "CPU per call", "CPU ÷ first size", "÷ bare LIST", "total")
	var firstCPU time.Duration
	for i, n := range sizes {
		volume, err := d.volume(n)
		if err != nil {
			return err
		}
		ns := fmt.Sprintf("%s-%d", benchNamespace, n)
		if err := api.createScans(ctx, d, ns, n); err != nil {
			return fmt.Errorf("creating scans: %w", err)
		}
		bare, err := measure(calls, func() error { return api.client.List(ctx, &cwacv1alpha1.CwacScanList{}, client.InNamespace(ns)) })
		if err != nil {
			return err
		}
		t.row(fmt.Sprint(n), "bare LIST of the CwacScans (baseline)", ms(bare.p50), ms(bare.p95), "", "", "1.00×", "")
		clients := []struct {
			label string
			c     client.Client
		}{
			{"scans listed from the API server", api.client},
			{"scans from the informer cache", mcpserver.WithScanListCache(ctx, api.cfg, api.scheme, ns, api.client, quietLog())},
		}
		for _, c := range clients {
			cached := c.c != api.client
			lat, cpu, total, err := listCalls(ctx, c.c, ns, volume, calls, cached && i == len(sizes)-1)
			if err != nil {
				return err
			}
			perCall, vsFirst := "", ""
			if cached {
				if i == 0 {
					firstCPU = cpu
				}
				perCall, vsFirst = ms(cpu), ratio(cpu, firstCPU)
			}
			t.row("", c.label, ms(lat.p50), ms(lat.p95), perCall, vsFirst, ratio(lat.p50, bare.p50), total)
		}
	}
	t.flush()
	return nil
}

// listCalls times calls of cwac_list_scans after one to warm up, and the
// process's CPU time per call; profile writes the CPU profile listProfile
// asks for.
func listCalls(ctx context.Context, c client.Client, ns, volume string, calls int, profile bool) (latency, time.Duration, string, error) {
	session, err := mcpSession(ctx, mcpserver.Config{Client: c, Namespace: ns, ResultsRoot: volume})
	if err != nil {
		return latency{}, 0, "", err
	}
	defer func() { _ = session.Close() }()
	var total string
	call := func() error {
		out, err := callTool(ctx, session, "cwac_list_scans", map[string]any{"limit": 50})
		total = fmt.Sprintf("%.0f", out["total"]) // a JSON number
		return err
	}
	if err := call(); err != nil { // the first call walks the volume and fills the caches
		return latency{}, 0, "", err
	}
	if profile && listProfile != "" {
		f, err := os.Create(listProfile)
		if err != nil {
			return latency{}, 0, "", err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return latency{}, 0, "", err
		}
		defer func() { pprof.StopCPUProfile(); _ = f.Close() }()
	}
	before := processCPU()
	lat, err := measure(calls, call)
	return lat, (processCPU() - before) / time.Duration(calls), total, err
}

// processCPU is this process's CPU time so far (user and system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// queueFigures runs the controller's queue cost test, which prints its own table.
func queueFigures(sizes string) error {
	fmt.Printf("\nThe operator's queue (internal/controller TestQueueWorkPerEventIsFlat, CWAC_QUEUE_SCANS=%s)\n", sizes)
	cmd := exec.Command("go", "test", "-tags", "integration", "./internal/controller/",
		"-run", "^TestQueueWorkPerEventIsFlat$", "-count=1", "-v", "-timeout", "30m")
	cmd.Env = append(os.Environ(), "CWAC_QUEUE_SCANS="+sizes)
	out, err := cmd.CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "queue_cost_integration_test.go") || strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "FAIL") {
			fmt.Println(line)
		}
	}
	if err != nil {
		return fmt.Errorf("queue cost test: %w", err)
	}
	// The test is behind the integration build tag: without it go test
	// passes, having run nothing.
	if !strings.Contains(string(out), "--- PASS: TestQueueWorkPerEventIsFlat") {
		return fmt.Errorf("queue cost test: go test ran no TestQueueWorkPerEventIsFlat:\n%s", out)
	}
	return nil
}
