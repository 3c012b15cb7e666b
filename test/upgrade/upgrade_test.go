//go:build integration && upgrade

// Package upgrade checks, on the real single-node cluster of hack/cluster/,
// that the operator installs from a registry alone (the chart from
// oci://…, the image it pins by digest) and that `helm upgrade` from the
// previous released chart to this one keeps everything a user has: scans
// and their results, schedules, decisions and the issue history. Run by
// hack/cluster/release-upgrade.sh, which publishes both releases to a
// registry it starts on this machine and sets the CWAC_UPGRADE_* variables;
// its own build tags keep it out of every other run.
package upgrade

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/testutil/wait"
)

const (
	ns      = "cwac-system"
	release = "cwac"
)

// env is what release-upgrade.sh passes.
type env struct {
	kubeconfig, kubectl, helm     string
	chart, from, to               string // oci://…/charts/cwac-operator and two versions
	fromImage, toImage            string // the image each chart pins: repository:tag@digest
	site, results, values, config string
	cwacImage                     string // the scans' image, in the registry too
}

func readEnv(t *testing.T) env {
	t.Helper()
	e := env{}
	for name, dst := range map[string]*string{
		"CWAC_UPGRADE_KUBECONFIG": &e.kubeconfig, "CWAC_UPGRADE_KUBECTL": &e.kubectl, "HELM": &e.helm,
		"CWAC_UPGRADE_CHART": &e.chart, "CWAC_UPGRADE_FROM": &e.from, "CWAC_UPGRADE_TO": &e.to,
		"CWAC_UPGRADE_FROM_IMAGE": &e.fromImage, "CWAC_UPGRADE_TO_IMAGE": &e.toImage,
		"CWAC_UPGRADE_SITE": &e.site, "CWAC_UPGRADE_RESULTS": &e.results,
		"CWAC_UPGRADE_VALUES": &e.values, "CWAC_UPGRADE_CWAC_DEFAULTS": &e.config, "CWAC_UPGRADE_CWAC_IMAGE": &e.cwacImage,
	} {
		if *dst = os.Getenv(name); *dst == "" {
			t.Fatalf("%s is not set: run hack/cluster/release-upgrade.sh", name)
		}
	}
	return e
}

func TestUpgradeFromThePreviousReleaseKeepsEverything(t *testing.T) {
	e := readEnv(t)
	ctx := context.Background()
	k8s := newClient(t, e.kubeconfig)
	helm := func(args ...string) {
		t.Helper()
		args = append(args, "-n", ns, "--kubeconfig", e.kubeconfig, "--plain-http", "-f", e.values,
			"--set", "cwac.image="+e.cwacImage, "--set-file", "cwac.defaultConfig="+e.config, "--wait", "--timeout", "5m")
		start := time.Now()
		out, err := exec.CommandContext(ctx, e.helm, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		fmt.Printf("TIMING helm_%s %.1fs\n", args[0], time.Since(start).Seconds())
	}

	// The previous release, from the registry alone.
	helm("install", release, e.chart, "--version", e.from, "--create-namespace")
	checkImages(t, k8s, e.fromImage)

	// What a user has by then: a scan, its results and its history, a
	// schedule and a decision.
	before := newScan(t, k8s, e.site, "upgrade-before")
	done := waitPhase(t, k8s, before.Name, cwacv1alpha1.PhaseComplete)
	if done.Status.Summary == nil || done.Status.Summary.TotalIssues == 0 || done.Status.ResultsPath == "" {
		t.Fatalf("the scan before the upgrade found nothing to keep: %+v", done.Status)
	}
	checkScanImages(t, k8s, done.Status.JobName, e.cwacImage, e.fromImage)
	openBefore := recorded(t, e, before.Name)
	files := resultFiles(t, filepath.Join(e.results, done.Status.ResultsPath))
	kept := []client.Object{
		schedule(t, k8s, e.site),
		decision(t, k8s),
		done,
	}
	uids := map[string]types.UID{}
	for _, o := range kept {
		uids[o.GetName()] = o.GetUID()
	}

	// This release, over it, as a user upgrades: the values they gave kept,
	// the new chart's defaults (its pinned image among them) taken.
	helm("upgrade", release, e.chart, "--version", e.to, "--reset-then-reuse-values")
	checkImages(t, k8s, e.toImage)

	for _, o := range kept {
		got := o.DeepCopyObject().(client.Object)
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(o), got); err != nil {
			t.Errorf("%s %s after the upgrade: %v", o.GetObjectKind().GroupVersionKind().Kind, o.GetName(), err)
			continue
		}
		if got.GetUID() != uids[o.GetName()] {
			t.Errorf("%s was replaced by the upgrade (uid %s, was %s)", o.GetName(), got.GetUID(), uids[o.GetName()])
		}
	}
	after := get(t, k8s, before.Name)
	if after.Status.Phase != cwacv1alpha1.PhaseComplete || after.Status.Summary == nil ||
		after.Status.Summary.TotalIssues != done.Status.Summary.TotalIssues || after.Status.ResultsPath != done.Status.ResultsPath {
		t.Errorf("the scan's status changed with the upgrade: %+v, was %+v", after.Status, done.Status)
	}
	if got := resultFiles(t, filepath.Join(e.results, done.Status.ResultsPath)); !slices.Equal(got, files) {
		t.Errorf("the scan's results changed with the upgrade: %v, were %v", got, files)
	}

	// The upgraded operator scans, compares with the kept results, and the
	// kept history knows every issue it finds: none is new again.
	next := newScan(t, k8s, e.site, "upgrade-after", func(s *cwacv1alpha1.CwacScanSpec) {
		s.Baseline = before.Name
	})
	nextDone := waitPhase(t, k8s, next.Name, cwacv1alpha1.PhaseComplete)
	var d *cwacv1alpha1.ScanDiff
	if nextDone.Status.Summary != nil {
		d = nextDone.Status.Summary.Diff
	}
	if d == nil || d.New != 0 || d.Unchanged == 0 {
		t.Errorf("the scan after the upgrade, against the one before: diff %+v, want all unchanged", d)
	}
	checkScanImages(t, k8s, nextDone.Status.JobName, e.cwacImage, e.toImage)
	// Every issue open after the scan before is still open, none new (the
	// site's issues may have been recorded by earlier scans too).
	openAfter := recorded(t, e, next.Name)
	if openAfter.newIssues != 0 || openAfter.stillOpen != openBefore.open() {
		t.Errorf("the history after the upgrade: %+v, want nothing new and the %d open before it still open (%+v)", openAfter, openBefore.open(), openBefore)
	}
}

func newClient(t *testing.T, kubeconfig string) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cwacv1alpha1.AddToScheme(scheme))
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkImages: the operator and the MCP server run the image the chart
// pins, and the scans' runner comes from it too.
func checkImages(t *testing.T, k8s client.Client, want string) {
	t.Helper()
	for _, name := range []string{"cwac-cwac-operator", "cwac-cwac-operator-mcp"} {
		d := &appsv1.Deployment{}
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, d); err != nil {
			t.Fatal(err)
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Image != want {
				t.Errorf("%s container %s runs %s, want %s", name, c.Name, c.Image, want)
			}
			for _, v := range c.Env {
				if v.Name == "RUNNER_IMAGE" && v.Value != want {
					t.Errorf("%s: RUNNER_IMAGE %s, want %s", name, v.Value, want)
				}
			}
		}
		if d.Status.UpdatedReplicas != d.Status.Replicas || d.Status.ReadyReplicas != d.Status.Replicas {
			t.Errorf("%s not rolled out: %+v", name, d.Status)
		}
	}
}

// checkScanImages: the scan's pod ran CWAC from cwacImage and took the
// runner from the operator's image, both from the registry.
func checkScanImages(t *testing.T, k8s client.Client, job, cwacImage, operatorImage string) {
	t.Helper()
	j := &batchv1.Job{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: job}, j); err != nil {
		t.Fatalf("the scan's Job %q: %v", job, err)
	}
	images := map[string]string{}
	for _, c := range append(j.Spec.Template.Spec.InitContainers, j.Spec.Template.Spec.Containers...) {
		images[c.Image] = c.Name
	}
	if images[cwacImage] != scanpod.ContainerName || images[operatorImage] == "" {
		t.Errorf("the scan's pod runs %v, want CWAC (%s) from %s and the runner from %s", images, scanpod.ContainerName, cwacImage, operatorImage)
	}
}

func newScan(t *testing.T, k8s client.Client, site, prefix string, mutate ...func(*cwacv1alpha1.CwacScanSpec)) *cwacv1alpha1.CwacScan {
	t.Helper()
	spec := cwacv1alpha1.CwacScanSpec{
		Sites:           []cwacv1alpha1.Site{{URL: site, Organisation: "CWAC Test Org", Sector: "Test Sector"}},
		ConfigOverrides: map[string]apiextensionsv1.JSON{"only_allow_https": {Raw: []byte("false")}},
	}
	for _, m := range mutate {
		m(&spec)
	}
	scan := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Name: prefix + "-" + rand.String(5), Namespace: ns}, Spec: spec}
	if err := k8s.Create(context.Background(), scan); err != nil {
		t.Fatal(err)
	}
	return scan
}

func get(t *testing.T, k8s client.Client, name string) *cwacv1alpha1.CwacScan {
	t.Helper()
	s := &cwacv1alpha1.CwacScan{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
		t.Fatal(err)
	}
	return s
}

func waitPhase(t *testing.T, k8s client.Client, name string, phase cwacv1alpha1.Phase) *cwacv1alpha1.CwacScan {
	t.Helper()
	var s *cwacv1alpha1.CwacScan
	wait.For(t, name+" to be "+string(phase), 5*time.Minute, func() (bool, string) {
		s = get(t, k8s, name)
		return s.Status.Phase == phase, fmt.Sprintf("%s: %s", s.Status.Phase, s.Status.Message)
	})
	return s
}

// schedule is a schedule of the test site that does not fire during the
// test (suspended).
func schedule(t *testing.T, k8s client.Client, site string) *cwacv1alpha1.CwacScanSchedule {
	t.Helper()
	s := &cwacv1alpha1.CwacScanSchedule{
		ObjectMeta: metav1.ObjectMeta{Name: "upgrade-nightly-" + rand.String(5), Namespace: ns},
		Spec: cwacv1alpha1.CwacScanScheduleSpec{
			Schedule: "0 2 * * *",
			Suspend:  true,
			ScanTemplate: cwacv1alpha1.CwacScanTemplate{Spec: cwacv1alpha1.CwacScanSpec{
				Sites: []cwacv1alpha1.Site{{URL: site, Organisation: "CWAC Test Org", Sector: "Test Sector"}},
			}},
		},
	}
	if err := k8s.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return s
}

func decision(t *testing.T, k8s client.Client) *cwacv1alpha1.CwacIssueDecision {
	t.Helper()
	d := &cwacv1alpha1.CwacIssueDecision{
		ObjectMeta: metav1.ObjectMeta{Name: "upgrade-accepted-" + rand.String(5), Namespace: ns},
		Spec: cwacv1alpha1.CwacIssueDecisionSpec{
			Organisation: "CWAC Test Org",
			Kind:         cwacv1alpha1.DecisionAccepted,
			Reason:       "Kept across the upgrade.",
			ReviewBy:     &metav1.Time{Time: time.Now().Add(90 * 24 * time.Hour).UTC().Truncate(time.Second)},
			Rule:         "color-contrast",
		},
	}
	if err := k8s.Create(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	return d
}

// history is what the issue history's Event on a scan counts.
type history struct {
	newIssues, reopened, stillOpen int
}

// open is how many of the organisation's issues are open once the scan is
// recorded.
func (h history) open() int { return h.newIssues + h.reopened + h.stillOpen }

// recorded waits for the issue history's Event on the scan and reads its
// counts.
func recorded(t *testing.T, e env, scan string) history {
	t.Helper()
	const prefix = "HistoryRecorded|recorded in the issue history: "
	var line string
	wait.For(t, scan+" recorded in the issue history", 3*time.Minute, func() (bool, string) {
		out, err := exec.Command(e.kubectl, "--kubeconfig", e.kubeconfig, "-n", ns, "get", "events.events.k8s.io",
			"--field-selector", "regarding.name="+scan, "-o", `jsonpath={range .items[*]}{.reason}|{.note}{"\n"}{end}`).CombinedOutput()
		if err != nil {
			t.Fatalf("listing Events: %v\n%s", err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, prefix) {
				line = l
			}
			if strings.HasPrefix(l, "HistoryIngestFailed|") || strings.HasPrefix(l, "HistoryOutOfOrder|") {
				t.Fatalf("%s was not recorded: %s", scan, l)
			}
		}
		return line != "", string(out)
	})
	var h history
	var orgs, fixed, notScanned int
	if _, err := fmt.Sscanf(strings.TrimPrefix(line, prefix), "%d organisations, %d new, %d fixed (%d more on pages not scanned), %d reopened, %d still open",
		&orgs, &h.newIssues, &fixed, &notScanned, &h.reopened, &h.stillOpen); err != nil {
		t.Fatalf("reading %q: %v", line, err)
	}
	if h.open() == 0 {
		t.Fatalf("%s: the history holds no open issue to keep: %q", scan, line)
	}
	return h
}

// resultFiles lists a results directory's files with their sizes.
func resultFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, fmt.Sprintf("%s %d", rel, info.Size()))
		return nil
	})
	if err != nil || len(out) == 0 {
		t.Fatalf("results in %s: %v (%d files)", dir, err, len(out))
	}
	return out
}
