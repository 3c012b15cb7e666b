package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// finishedNamespace holds the finished scans of the memory figures.
const finishedNamespace = "finished"

// memoryFigures measures the manager's resident memory (cmd/manager, in its
// own process, watching only finishedNamespace) with n finished scans, for
// each n: the scans are created first, as a finished scan's status really
// is (conditions, summary, top violations, a diff by organisation), then
// the manager is started, and measured once it has listed every scan and
// settled.
func memoryFigures(ctx context.Context, api *apiServer, binDir string, sizes []int) error {
	bin := filepath.Join(binDir, "manager")
	build := exec.Command("go", "build", "-o", bin, "./cmd/manager")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building the manager: %w", err)
	}
	kubeconfig, err := operatorKubeconfig(api, binDir)
	if err != nil {
		return err
	}
	if err := api.client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: finishedNamespace}}); err != nil {
		return err
	}
	slices.Sort(sizes)
	t := newTable("The manager's memory with finished scans (cmd/manager in its own process, once it has listed every scan and settled)",
		"finished scans", "resident", "÷ resident at first size", "Go heap", "heap per scan over first size", "peak while listing")
	created := 0
	var first memoryFigure
	for i, n := range sizes {
		if err := createFinishedScans(ctx, api.client, created, n); err != nil {
			return fmt.Errorf("creating finished scans: %w", err)
		}
		created = n
		f, err := managerMemory(ctx, bin, kubeconfig, binDir, n)
		if err != nil {
			return err
		}
		perScan := "-"
		if i == 0 {
			first = f
		} else {
			perScan = fmt.Sprintf("%.2f KiB", (f.heapMiB-first.heapMiB)*1024/float64(n-sizes[0]))
		}
		t.row(strconv.Itoa(n), fmt.Sprintf("%.1f MiB", f.rssMiB), fmt.Sprintf("%.2f×", f.rssMiB/first.rssMiB),
			fmt.Sprintf("%.1f MiB", f.heapMiB), perScan, fmt.Sprintf("%.1f MiB", f.peakMiB))
	}
	t.flush()
	fmt.Println("  (the peak is the start's: envtest's etcd cannot stream the first list (RequestWatchProgress), so it comes in pages")
	fmt.Println("  of 100 whole scans, each page slimmed before the next, while this bench scrapes the metrics every 500 ms,")
	fmt.Println("  each scrape listing every cached scan; finished scans that need nothing, as these, are not reconciled)")
	return nil
}

// operatorKubeconfig writes a kubeconfig of the operator's own user
// ("cwac-operator"), so the audit log tells its requests from the bench's.
func operatorKubeconfig(api *apiServer, dir string) (string, error) {
	user, err := api.env.AddUser(envtestOperator(), nil)
	if err != nil {
		return "", err
	}
	data, err := user.KubeConfig()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "operator.kubeconfig")
	return path, os.WriteFile(path, data, 0o600)
}

// operatorUser is the operator's user name in the bench's API server.
const operatorUser = "cwac-operator"

// memoryFigure is one measurement of the manager: its resident memory
// once settled, its peak (while it listed the scans), its Go heap
// (allocated, after the idle process's last collection).
type memoryFigure struct{ rssMiB, peakMiB, heapMiB float64 }

// managerMemory starts the manager, waits until its cache holds n scans
// and its work queue is empty, lets it settle, and reads its resident
// memory (the median of five readings a second apart) and Go heap in use.
func managerMemory(ctx context.Context, bin, kubeconfig, dir string, n int) (memoryFigure, error) {
	port, err := freePort()
	if err != nil {
		return memoryFigure{}, err
	}
	logFile, err := os.Create(filepath.Join(dir, fmt.Sprintf("manager-%d.log", n)))
	if err != nil {
		return memoryFigure{}, err
	}
	defer func() { _ = logFile.Close() }()
	metricsAddr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, "--metrics-bind-address="+metricsAddr, "--metrics-secure=false", "--health-probe-bind-address=0",
		"--watch-namespaces="+finishedNamespace, "--zap-log-level=error")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return memoryFigure{}, err
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	deadline := time.Now().Add(10 * time.Minute)
	for {
		m, err := scrape(ctx, "http://"+metricsAddr+"/metrics")
		// Synced (the scans gauge reads the cache only once it is) with
		// every scan counted, and nothing left in the work queue: the
		// scans that need nothing (these, without TTL or Job) are never
		// queued, so reconciles are no measure of a settled start.
		if err == nil && m.sum(`cwac_scan_collector_up`) == 1 && m.sum(`cwac_scans{`) >= float64(n) &&
			m.sum(`workqueue_depth{controller="cwacscan"`) == 0 {
			break
		}
		if time.Now().After(deadline) {
			return memoryFigure{}, fmt.Errorf("the manager did not list %d scans and settle within 10 minutes (see %s)", n, logFile.Name())
		}
		time.Sleep(500 * time.Millisecond)
	}
	// The first list's garbage (whole scans, before the cache transform
	// slims them) goes at a collection, and its memory back to the system
	// after the next: Go returns what exceeds the heap goal of the
	// collection before, and an idle process collects every 2 minutes.
	// Wait for two, then for the resident memory to hold steady (four
	// readings 5 s apart within 2%), at most 2 minutes more.
	time.Sleep(250 * time.Second)
	var rss []float64
	for settle := time.Now().Add(2 * time.Minute); time.Now().Before(settle); time.Sleep(5 * time.Second) {
		kib, err := residentKiB(cmd.Process.Pid, "VmRSS:")
		if err != nil {
			return memoryFigure{}, err
		}
		rss = append(rss, float64(kib)/1024)
		if last := rss[max(0, len(rss)-4):]; len(last) == 4 && slices.Max(last) <= 1.02*slices.Min(last) {
			break
		}
	}
	m, err := scrape(ctx, "http://"+metricsAddr+"/metrics")
	if err != nil {
		return memoryFigure{}, err
	}
	peak, err := residentKiB(cmd.Process.Pid, "VmHWM:")
	if err != nil {
		return memoryFigure{}, err
	}
	return memoryFigure{rssMiB: rss[len(rss)-1], peakMiB: float64(peak) / 1024, heapMiB: m.sum("go_memstats_heap_alloc_bytes") / (1 << 20)}, nil
}

// metricLines are a Prometheus text exposition's sample lines.
type metricLines []string

// sum adds the values of the samples whose line starts with prefix.
func (m metricLines) sum(prefix string) float64 {
	total := 0.0
	for _, l := range m {
		if !strings.HasPrefix(l, prefix) {
			continue
		}
		if v, err := strconv.ParseFloat(l[strings.LastIndexByte(l, ' ')+1:], 64); err == nil {
			total += v
		}
	}
	return total
}

func scrape(ctx context.Context, url string) (metricLines, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	var lines metricLines
	s := bufio.NewScanner(resp.Body)
	for s.Scan() {
		if l := s.Text(); !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines, s.Err()
}

// residentKiB is a process's resident memory: field is VmRSS: (now) or
// VmHWM: (its peak).
func residentKiB(pid int, field string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, field); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// createFinishedScans creates scans from..to-1 of finishedNamespace, each
// with the status a finished scan of 40 organisations' sites has.
func createFinishedScans(ctx context.Context, c client.Client, from, to int) error {
	var wg sync.WaitGroup
	errs := make(chan error, to-from)
	work := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				scan := finishedScan(i)
				status := scan.Status
				if err := c.Create(ctx, scan); err != nil {
					errs <- err
					continue
				}
				scan.Status = status
				if err := c.Status().Update(ctx, scan); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := from; i < to; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs // nil when there was none
}

// ruleColorContrast is axe's rule of the most frequent issue.
const ruleColorContrast = "color-contrast"

// byImpact maps axe's impacts, most severe first, to counts.
func byImpact(counts ...int64) map[string]int64 {
	m := map[string]int64{}
	for i, impact := range results.Impacts() {
		m[impact] = counts[i]
	}
	return m
}

// finishedScan is scan i of finishedNamespace as the operator leaves a
// Complete scan of 40 organisations' sites compared with a baseline.
func finishedScan(i int) *cwacv1alpha1.CwacScan {
	const orgs = 40
	name := fmt.Sprintf("done-%05d", i)
	sites := make([]cwacv1alpha1.Site, orgs)
	byOrg := make([]cwacv1alpha1.OrganisationDiff, orgs)
	for o := range orgs {
		org := fmt.Sprintf("Organisation number %02d of the benchmark", o)
		sites[o] = cwacv1alpha1.Site{URL: fmt.Sprintf("https://www.agency-%02d.example.govt.nz/", o), Organisation: org, Sector: "Central government"}
		byOrg[o] = cwacv1alpha1.OrganisationDiff{Organisation: org, New: int64(o % 7), Fixed: int64(o % 5), Unchanged: int64(40 + o)}
	}
	rules := []string{ruleColorContrast, "image-alt", "link-name", "region", "landmark-one-main", "heading-order",
		"label", "button-name", "duplicate-id-aria", "aria-allowed-attr"}
	top := make([]cwacv1alpha1.Violation, len(rules))
	for r, id := range rules {
		top[r] = cwacv1alpha1.Violation{ID: id, AuditType: "AxeCoreAudit", Impact: results.Impacts()[1], Count: int64(200 - 10*r),
			Description: "Ensures the contrast between foreground and background colors meets WCAG 2 AA minimum contrast ratio thresholds"}
	}
	now := metav1.Now()
	start := metav1.NewTime(now.Add(-20 * time.Minute))
	code := int32(0)
	cond := func(t, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: reason, Message: msg, LastTransitionTime: now, ObservedGeneration: 1}
	}
	base := fmt.Sprintf("done-%05d", i+1) // a later one: the API refuses only the scan itself
	return &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: finishedNamespace,
			Labels: map[string]string{"team": "accessibility", "app.kubernetes.io/part-of": "benchmark"}},
		Spec: cwacv1alpha1.CwacScanSpec{Sites: sites, Baseline: base, MaxLinksPerDomain: 50, Timeout: "1h", ThreadCount: 1,
			ResultsPolicy: cwacv1alpha1.ResultsRetain, Plugins: map[string]bool{"screenshot_audit": false, "language_audit": true}},
		Status: cwacv1alpha1.CwacScanStatus{
			Phase: cwacv1alpha1.PhaseComplete, ObservedGeneration: 1, JobName: "cwac-" + name, StartTime: &start, CompletionTime: &now,
			ExitCode: &code, Message: "scanned 2000 pages of 40 sites, found 1234 issues",
			ResultsPath: fmt.Sprintf("%s/%s-0123abcd/2026-11-21_23-18-23_%s", finishedNamespace, name, name),
			Conditions: []metav1.Condition{
				cond(cwacv1alpha1.ConditionAdmitted, cwacv1alpha1.ReasonURLsAllowed, "40 base URLs allowed by the scan-target policy"),
				cond(cwacv1alpha1.ConditionStarted, cwacv1alpha1.ReasonJobCreated, "created Job cwac-"+name),
				cond(cwacv1alpha1.ConditionComplete, cwacv1alpha1.ReasonSucceeded, "scanned 2000 pages of 40 sites, found 1234 issues"),
				cond(cwacv1alpha1.ConditionFinished, cwacv1alpha1.ReasonSucceeded, "Complete: scanned 2000 pages of 40 sites, found 1234 issues"),
				cond(cwacv1alpha1.ConditionAllSitesScanned, cwacv1alpha1.ReasonAllSitesScanned, "every base URL yielded pages"),
				cond(cwacv1alpha1.ConditionThresholdsMet, cwacv1alpha1.ReasonNoThresholds, "the scan sets no thresholds"),
				cond(cwacv1alpha1.ConditionBaselineCompared, cwacv1alpha1.ReasonCompared, "against "+base+": 120 new, 80 fixed, 1034 unchanged issues"),
			},
			Summary: &cwacv1alpha1.ScanSummary{
				TotalIssues:       1234,
				IssuesByAuditType: map[string]int64{"AxeCoreAudit": 1100, "FocusIndicatorAudit": 80, "ReflowAudit": 40, "LanguageAudit": 14},
				IssuesByImpact:    byImpact(40, 700, 300, 60),
				TopViolations:     top,
				Informational:     map[string]int64{"TitleAudit": 2000, "LanguageAudit": 2000, "ElementAudit": 900},
				UrlsScanned:       2000, PagesScanned: 2000, DurationSeconds: 1180,
				Diff: &cwacv1alpha1.ScanDiff{Baseline: base, New: 120, Fixed: 80, Unchanged: 1034, Unstable: 6, NewElements: 90, FixedElements: 70,
					NewByImpact:   byImpact(4, 70, 40, 6),
					FixedByImpact: byImpact(2, 50, 25, 3),
					PagesAdded:    12, PagesRemoved: 9, NewOnAddedPages: 11, FixedOnRemovedPages: 7, ByOrganisation: byOrg},
			},
		},
	}
}
