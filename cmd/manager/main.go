// Command manager runs the cwac-operator controller manager.
package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/controller"
	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
	"github.com/a11y-dev/cwac-operator/internal/memlimit"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/urlcheck"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// defaultChromeArgs are the Chrome flags scans get: --no-sandbox because
// Chrome's own sandbox needs user namespaces, which RuntimeDefault seccomp
// blocks (see docs/security.md for the Localhost profile that allows it).
const (
	defaultChromeArgs = "--no-sandbox,--disable-gpu,--disable-dev-shm-usage,--disable-background-networking,--disable-component-update,--disable-sync"
)

func main() {
	var (
		metricsAddr, probeAddr string
		metricsCertDir         string
		leaderElect            bool
		metricsSecure          bool
		watchNamespaces        string
		maxConcurrent          int
		scan                   scanFlags
	)
	scan.bind(flag.CommandLine)
	var policyFlags urlpolicy.Flags
	policyFlags.Bind(flag.CommandLine)
	var notifyOpts notifyFlags
	notifyOpts.bind(flag.CommandLine)
	var maxURLs, workers, admissionWorkers, admissionURLChecks int
	var admissionTimeout, finishedJobTTL, cleanupTimeout time.Duration
	flag.IntVar(&workers, "workers", controller.DefaultWorkers, "scans reconciled at once")
	flag.IntVar(&admissionWorkers, "admission-workers", controller.DefaultAdmissionWorkers,
		"scans admitted at once (none waits for the network: URL checks run in their own pool, --admission-url-checks)")
	flag.IntVar(&admissionURLChecks, "admission-url-checks", urlcheck.DefaultChecks,
		"URLs checked against the scan-target policy at once (name lookups and redirect probes), all scans together, "+
			"shared fairly: one namespace's scans take at most half, one scan at most 8")
	flag.DurationVar(&admissionTimeout, "admission-timeout", controller.DefaultAdmissionTimeout,
		"budget for checking one scan's URLs; a scan whose checks take longer ends Failed (AdmissionTimedOut)")
	flag.DurationVar(&finishedJobTTL, "finished-job-ttl", 24*time.Hour,
		"remove a finished scan's Job and pod this long after it finished; the CwacScan and its status stay (0 keeps them)")
	flag.DurationVar(&cleanupTimeout, "results-cleanup-timeout", controller.DefaultCleanupTimeout,
		"how long a deleted scan with resultsPolicy Delete waits for its results to be removed before it goes anyway (a Warning Event says so)")
	flag.IntVar(&maxURLs, "max-urls-per-scan", 1000, "scans with more base URLs end Failed (TooManyURLs) before anything runs")
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8080", "address the metrics endpoint binds to (0 disables it)")
	flag.BoolVar(&metricsSecure, "metrics-secure", true,
		"serve metrics over HTTPS, each request's bearer token checked with a TokenReview and its right to GET /metrics with a "+
			"SubjectAccessReview (false: plain HTTP with no authentication, for local development only)")
	flag.StringVar(&metricsCertDir, "metrics-cert-dir", "",
		"directory holding tls.crt and tls.key for the metrics endpoint (default: a self-signed certificate made at start)")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "address the health and readiness probes bind to")
	flag.BoolVar(&leaderElect, "leader-elect", false, "enable leader election (needed when running more than one replica)")
	flag.StringVar(&watchNamespaces, "watch-namespaces", "", "comma-separated namespaces to watch (default: all)")
	flag.IntVar(&maxConcurrent, "max-concurrent-scans", 2,
		"scans allowed to run at once across the cluster; more wait in Queued, oldest first (0 = no cap)")
	zapOpts := zap.Options{Development: false}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	log := ctrl.Log.WithName("setup")
	if setGCPercent(os.Getenv) {
		log.Info("GOGC not set: collecting at " + fmt.Sprint(managerGCPercent) + "% heap growth")
	}
	memlimit.SetLogged(log.Info)

	exit := func(msg string, err error) {
		log.Error(err, msg)
		os.Exit(1)
	}
	opts, err := scan.options()
	if err != nil {
		exit("invalid scan settings", err)
	}
	policy, err := policyFlags.Build()
	if err != nil {
		exit("invalid scan-target policy", err)
	}
	opts.Egress = policyFlags.Lists // each scan pod's egress proxy checks connections against the same lists
	notifications, err := notifyOpts.options(policyFlags.Lists)
	if err != nil {
		exit("invalid notification settings", err)
	}
	if min(workers, admissionWorkers, admissionURLChecks) < 1 || admissionTimeout <= 0 {
		exit("invalid controller settings", fmt.Errorf(
			"--workers (%d), --admission-workers (%d) and --admission-url-checks (%d) must be at least 1 and --admission-timeout (%s) positive",
			workers, admissionWorkers, admissionURLChecks, admissionTimeout))
	}
	if finishedJobTTL < 0 || cleanupTimeout <= 0 {
		exit("invalid retention settings", fmt.Errorf("--finished-job-ttl (%s) may not be negative and --results-cleanup-timeout (%s) must be positive",
			finishedJobTTL, cleanupTimeout))
	}
	if maxConcurrent < 0 {
		exit("invalid --max-concurrent-scans", fmt.Errorf("%d is negative", maxConcurrent))
	}

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cwacv1alpha1.AddToScheme(scheme))

	// Cache only the Jobs and pods the operator made, little of finished
	// scans, and list scans in pages (internal/controller/pagedlist.go), on
	// a connection to the API server of the cache's own
	// (internal/controller/cacheconn.go).
	restConfig := controller.RequestsInParallel(ctrl.GetConfigOrDie())
	watches, err := controller.CacheHTTPClient(restConfig)
	if err != nil {
		exit("building the cache's API client", err)
	}
	informers := controller.NewInformers()
	cacheOpts := cache.Options{ByObject: controller.CacheByObject(), NewInformer: informers.New, HTTPClient: watches}
	var namespaces []string
	for _, ns := range strings.Split(watchNamespaces, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			namespaces = append(namespaces, ns)
		}
	}
	if len(namespaces) > 0 {
		cacheOpts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			cacheOpts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  cacheOpts,
		Metrics:                controller.MetricsServerOptions(metricsAddr, metricsSecure, metricsCertDir),
		HealthProbeBindAddress: probeAddr,
		LeaderElection:         leaderElect,
		LeaderElectionID:       "cwac-operator.cwac.a11y.dev",
	})
	if err != nil {
		exit("creating manager", err)
	}
	bucket, err := openBucket(opts.Bucket.Config, log)
	if err != nil {
		exit("results bucket", err)
	}
	if err := controller.Setup(mgr, controller.Options{
		JobOptions: opts, MaxConcurrentScans: maxConcurrent, Policy: policy, MaxURLsPerScan: maxURLs,
		Workers: workers, AdmissionWorkers: admissionWorkers, AdmissionURLChecks: admissionURLChecks, AdmissionTimeout: admissionTimeout,
		FinishedJobTTL: finishedJobTTL, CleanupTimeout: cleanupTimeout, Notify: notifications, Bucket: bucket,
	}); err != nil {
		exit("setting up controller", err)
	}
	if _, err := controller.SetupMetricsWith(mgr, ctrlmetrics.Registry, informers); err != nil {
		exit("setting up metrics", err)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		exit("adding health check", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		exit("adding ready check", err)
	}
	switch {
	case opts.DefaultConfig != nil:
		log.Info("scans get CWAC's defaults from --cwac-default-config", "path", scan.defaultConfigPath, "bytes", len(opts.DefaultConfig))
	case opts.DefaultImageLacksDefaults:
		log.Info("WARNING: the CWAC image is declared without CWAC's defaults (--cwac-image-has-defaults=false) and --cwac-default-config is not set: "+
			"scans of that image end Failed/NoCWACDefaults at admission", "cwacImage", opts.DefaultImage)
	}
	if slices.Contains(opts.AllowedImages, scanjob.AnyImage) {
		log.Info("WARNING: --allowed-images=* lets every scan run any image with the scan pod's access to its namespace's results and network")
	}
	log.Info("starting manager", "cwacImage", opts.DefaultImage, "runnerImage", opts.RunnerImage, "resultsPVC", opts.ResultsPVC,
		"maxConcurrentScans", maxConcurrent)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		exit("running manager", err)
	}
}

// scanFlags are the flags that shape scan pods.
type scanFlags struct {
	opts                             scanjob.Options
	bucketScratch                    string
	cpuRequest, memRequest, memLimit string
	scanResources                    string
	pullPolicy                       string
	env                              stringList
	nodeSelector, tolerations        string
	affinity                         string
	defaultConfigPath                string
	imageHasDefaults                 bool
	allowedImages                    string
}

func (f *scanFlags) bind(fs *flag.FlagSet) {
	o := &f.opts
	fs.StringVar(&o.ResultsPVC, "results-pvc", "cwac-results", "PersistentVolumeClaim holding scan results (in each scan's namespace)")
	o.Bucket.Config.Bind(fs) // --results-bucket-*: results in a bucket instead (docs/results-bucket.md)
	fs.StringVar(&o.Bucket.CredentialsSecret, "results-bucket-pod-credentials-secret", "",
		"with a results bucket: the Secret (access-key-id, secret-access-key) mounted into merge pods; empty: the platform's credentials. "+
			"Scan pods never get it: they store with a grant the operator signs")
	fs.StringVar(&o.Bucket.CASecret, "results-bucket-pod-ca-secret", "",
		"with a results bucket: the Secret holding ca.crt, the endpoint's private authorities, mounted into merge pods")
	fs.StringVar(&o.Bucket.ServiceAccountName, "results-bucket-merge-service-account", "",
		"with a results bucket: the service account merge pods run as, the one workload identity gives the bucket's credentials to "+
			"(scan pods never run as it); empty: the scan pods' (--scan-service-account)")
	fs.StringVar(&f.bucketScratch, "results-bucket-scratch", scanjob.DefaultResultsScratch.String(),
		"with a results bucket: the size limit of each pod's own results volume, which it stores from")
	fs.StringVar(&o.DefaultImage, "cwac-image", "cwac:latest", "default CWAC image (built from CWAC's own Dockerfile)")
	fs.StringVar(&o.RunnerImage, "runner-image", envOr("RUNNER_IMAGE", "cwac-operator:latest"),
		"image holding /cwac-runner (the operator's own image); env RUNNER_IMAGE")
	fs.StringVar(&o.CWACDir, "cwac-dir", "/cwac", "CWAC's directory in its image")
	fs.StringVar(&f.defaultConfigPath, "cwac-default-config", "",
		"CWAC's config_default.json from a CWAC checkout (the chart mounts its cwac.defaultConfig here); "+
			"copied into every scan's ConfigMap, where it is used instead of the image's config/config_default.json. Read once at start")
	fs.BoolVar(&f.imageHasDefaults, "cwac-image-has-defaults", true,
		"whether the --cwac-image carries config/config_default.json; false (as for CWAC's own Dockerfile, which leaves config/ out) "+
			"refuses scans of that image at admission (NoCWACDefaults) unless --cwac-default-config is given")
	fs.StringVar(&f.allowedImages, "allowed-images", "",
		"other CWAC images scans may name in spec.image, comma-separated: image references, or prefixes ending in * (registry.example/cwac:*), "+
			"or * for any; empty: --cwac-image only (a scan naming another ends Failed/ImageNotAllowed)")
	fs.StringVar(&o.Python, "cwac-python", "", "Python interpreter in the CWAC image (default: <cwac-dir>/.venv/bin/python if present, else python3)")
	fs.StringVar(&o.ChromeExtraArgs, "chrome-extra-args", defaultChromeArgs, "CHROME_EXTRA_ARGS for scan pods (comma-separated Chrome flags)")
	fs.StringVar(&o.ServiceAccountName, "scan-service-account", "", "service account for scan pods (its token is never mounted)")
	fs.StringVar(&f.cpuRequest, "scan-cpu-request", "500m", "default CPU request of the CWAC container")
	fs.StringVar(&f.memRequest, "scan-memory-request", "512Mi", "default memory request of the CWAC container, per browser thread (see --scan-memory-per-thread)")
	fs.StringVar(&f.memLimit, "scan-memory-limit", "1Gi",
		"default memory limit of the CWAC container, per browser thread "+
			"(one thread was measured to pass at 512Mi and be OOM-killed at 384Mi; two to thrash under 1Gi and run clean under 2Gi)")
	fs.BoolVar(&o.ScaleMemoryWithThreads, "scan-memory-per-thread", true,
		"multiply the default memory request and limit by the scan's threadCount (a scan's own spec.resources are never changed)")
	fs.StringVar(&f.pullPolicy, "image-pull-policy", "", "image pull policy for scan pods: Always, IfNotPresent or Never (default: Kubernetes' own)")
	fs.StringVar(&f.scanResources, "scan-resources", "",
		"resources of the CWAC container as a JSON ResourceRequirements object (overrides the three --scan-* resource flags; its memory is per thread too)")
	fs.Var(&f.env, "scan-env", "extra NAME=VALUE environment for the CWAC container (repeatable)")
	fs.StringVar(&f.nodeSelector, "scan-node-selector", "", "node selector for scan pods, as key=value,key=value")
	fs.StringVar(&f.tolerations, "scan-tolerations", "", "tolerations for scan pods, as a JSON list of Kubernetes tolerations")
	fs.StringVar(&o.SeccompLocalhostProfile, "scan-seccomp-localhost-profile", "",
		"run scan pods under this Localhost seccomp profile instead of RuntimeDefault (it must exist on every node; see config/seccomp/)")
	fs.StringVar(&f.affinity, "scan-affinity", "", "affinity for scan pods, as a JSON Kubernetes affinity object")
}

// options turns the parsed flags into the scan pods' settings.
func (f *scanFlags) options() (scanjob.Options, error) {
	opts := f.opts
	res, err := resources(f.cpuRequest, f.memRequest, f.memLimit)
	if err != nil {
		return opts, fmt.Errorf("scan resources: %w", err)
	}
	opts.Resources = res
	if f.scanResources != "" {
		opts.Resources = corev1.ResourceRequirements{}
		if err := json.Unmarshal([]byte(f.scanResources), &opts.Resources); err != nil {
			return opts, fmt.Errorf("--scan-resources: %w", err)
		}
	}
	if f.defaultConfigPath != "" {
		if opts.DefaultConfig, err = readDefaultConfig(f.defaultConfigPath); err != nil {
			return opts, fmt.Errorf("--cwac-default-config: %w", err)
		}
	}
	opts.DefaultImageLacksDefaults = !f.imageHasDefaults
	if opts.Bucket.Scratch, err = resource.ParseQuantity(f.bucketScratch); err != nil || opts.Bucket.Scratch.Sign() <= 0 {
		return opts, fmt.Errorf("--results-bucket-scratch: %q is not a size such as 20Gi", f.bucketScratch)
	}
	if err := opts.Bucket.Config.Validate(); err != nil {
		return opts, err
	}
	if err := checkMergeServiceAccount(opts); err != nil {
		return opts, fmt.Errorf("--results-bucket-merge-service-account: %w", err)
	}
	if opts.AllowedImages, err = scanjob.ParseAllowedImages(f.allowedImages); err != nil {
		return opts, fmt.Errorf("--allowed-images: %w", err)
	}
	switch p := corev1.PullPolicy(f.pullPolicy); p {
	case "", corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
		opts.ImagePullPolicy = p
	default:
		return opts, fmt.Errorf("--image-pull-policy: %q is not Always, IfNotPresent or Never", f.pullPolicy)
	}
	for _, kv := range f.env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return opts, fmt.Errorf("--scan-env: %q is not NAME=VALUE", kv)
		}
		opts.Env = append(opts.Env, corev1.EnvVar{Name: name, Value: value})
	}
	if f.nodeSelector != "" {
		opts.NodeSelector = map[string]string{}
		for _, kv := range strings.Split(f.nodeSelector, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok || k == "" {
				return opts, fmt.Errorf("--scan-node-selector: %q is not key=value", kv)
			}
			opts.NodeSelector[k] = v
		}
	}
	if f.tolerations != "" {
		if err := json.Unmarshal([]byte(f.tolerations), &opts.Tolerations); err != nil {
			return opts, fmt.Errorf("--scan-tolerations: %w", err)
		}
	}
	if f.affinity != "" {
		opts.Affinity = &corev1.Affinity{}
		if err := json.Unmarshal([]byte(f.affinity), opts.Affinity); err != nil {
			return opts, fmt.Errorf("--scan-affinity: %w", err)
		}
	}
	return opts, nil
}

// maxDefaultConfigBytes bounds --cwac-default-config: it is copied into
// every scan's ConfigMap (CWAC's own is about 2 KB).
const maxDefaultConfigBytes = 256 << 10

// readDefaultConfig reads CWAC's config_default.json for --cwac-default-config:
// a JSON object in UTF-8, kept byte for byte.
func readDefaultConfig(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) > maxDefaultConfigBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a CWAC config can sensibly be", path, len(data), maxDefaultConfigBytes)
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s: not UTF-8", path)
	}
	if _, err := cwacconfig.Decode(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

func resources(cpuReq, memReq, memLimit string) (corev1.ResourceRequirements, error) {
	out := corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	for _, q := range []struct {
		list  corev1.ResourceList
		name  corev1.ResourceName
		value string
	}{{out.Requests, corev1.ResourceCPU, cpuReq}, {out.Requests, corev1.ResourceMemory, memReq}, {out.Limits, corev1.ResourceMemory, memLimit}} {
		if q.value == "" {
			continue
		}
		v, err := resource.ParseQuantity(q.value)
		if err != nil {
			return out, fmt.Errorf("%s %q: %w", q.name, q.value, err)
		}
		q.list[q.name] = v
	}
	return out, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// checkMergeServiceAccount refuses a merge pods' service account that
// would do nothing (no bucket), is no name, or is the scan pods' own: the
// account that holds the bucket's identity must not be one a pod running
// CWAC's browser runs as.
func checkMergeServiceAccount(opts scanjob.Options) error {
	name := opts.Bucket.ServiceAccountName
	switch {
	case name == "":
		return nil
	case !opts.Bucket.Enabled():
		return errors.New("set without a results bucket (--results-bucket-endpoint)")
	case name == cmp.Or(opts.ServiceAccountName, "default"):
		return fmt.Errorf("%q is also the scan pods' service account (--scan-service-account): "+
			"scan pods run CWAC's browser and must not hold the bucket's identity", name)
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return fmt.Errorf("%q is not a service account name: %s", name, strings.Join(errs, "; "))
	}
	return nil
}
