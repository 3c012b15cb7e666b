// Command mcp-server serves the CWAC tools over MCP (streamable HTTP or
// stdio) and the REST execution-service interface: see internal/mcpserver.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
	"github.com/a11y-dev/cwac-operator/internal/memlimit"
	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

var version = "dev"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "import" {
		os.Exit(runImport(os.Args[2:]))
	}
	var (
		transport, listen, namespace, resultsRoot, compareDir string
		callTimeout                                           time.Duration
		maxRequestBytes                                       int64
		maxResponseBytes, maxResults                          int
		maxConnsPerClient, maxUnauthConns                     int
	)
	flag.StringVar(&transport, "transport", "stdio",
		"stdio (MCP on stdin/stdout, for a local client) or http (streamable HTTP at /mcp, plus /tools, /execute, /health, and the dashboard at /)")
	flag.StringVar(&listen, "listen", ":8090", "address for the http transport")
	flag.StringVar(&namespace, "namespace", "", "namespace where scans are created and read (default: the pod's own, else the kubeconfig context's, else default)")
	flag.StringVar(&resultsRoot, "results-root", "/results", "where the results volume is mounted (unused with a results bucket)")
	flag.StringVar(&compareDir, "compare-dir", "", "a directory for scratch files: cwac_compare_scans compares scans without a usable diff.json "+
		"there, in bounded memory (empty: in memory)")
	var bucketCfg objectstore.Config
	bucketCfg.Bind(flag.CommandLine)
	flag.DurationVar(&callTimeout, "call-timeout", 30*time.Second, "timeout of every tool call")
	flag.Int64Var(&maxRequestBytes, "max-request-bytes", 1<<20, "larger HTTP request bodies are refused before parsing")
	flag.IntVar(&maxResponseBytes, "max-response-bytes", 512*1024, "cap on a tool answer's size")
	flag.IntVar(&maxResults, "max-results", 1000, "hard maximum of cwac_get_results' limit")
	flag.IntVar(&maxConnsPerClient, "max-conns-per-client", mcpserver.DefaultMaxConnsPerCaller,
		"connections one authenticated caller may hold open at once (http transport; without authentication, one address)")
	flag.IntVar(&maxUnauthConns, "max-unauthenticated-conns", mcpserver.DefaultMaxUnauthenticatedConns,
		"connections not yet authenticated, all clients together (http transport); when full, a new one closes the oldest idle one")
	var (
		authMode, tokenFile, audiences string
		readOnly                       bool
		scansPerMinute                 float64
		scanBurst, maxURLs             int
		policyFlags                    urlpolicy.Flags
	)
	flag.StringVar(&authMode, "auth", "kubernetes", "HTTP authentication: "+
		"kubernetes (bearer tokens checked with TokenReview, every call with SubjectAccessReview), "+
		"token (one bearer token from --auth-token-file), or none (explicitly unauthenticated)")
	flag.StringVar(&tokenFile, "auth-token-file", "", "file holding the bearer token for --auth=token (mount it from a Secret)")
	flag.StringVar(&audiences, "auth-audiences", "", "comma-separated token audiences for --auth=kubernetes (default: the API server's)")
	var authCacheTTL time.Duration
	flag.DurationVar(&authCacheTTL, "auth-cache-ttl", mcpserver.DefaultAuthCacheTTL,
		"how long a token's review is remembered for --auth=kubernetes: a revoked token or deleted service account "+
			"works at most this long (permissions are checked on every call)")
	flag.BoolVar(&readOnly, "read-only", false, "hide cwac_scan, the one tool that changes anything (the others only read)")
	flag.Float64Var(&scansPerMinute, "scans-per-minute", 10, "cwac_scan calls allowed per caller per minute")
	flag.IntVar(&scanBurst, "scan-burst", 5, "cwac_scan calls a caller may make at once before the per-minute rate applies")
	flag.IntVar(&maxURLs, "max-urls-per-scan", 1000, "cwac_scan refuses more URLs than this")
	policyFlags.Bind(flag.CommandLine)
	var (
		storeFlags     storeFlags
		writerFlags    writerFlags
		digestFlags    digestFlags
		dashboardFlags dashboardFlags
		oauthFlags     oauthFlags
		eventFlags     issueEventFlags
	)
	storeFlags.bind(flag.CommandLine)
	writerFlags.bind(flag.CommandLine)
	digestFlags.bind(flag.CommandLine)
	dashboardFlags.bind(flag.CommandLine)
	oauthFlags.bind(flag.CommandLine)
	eventFlags.bind(flag.CommandLine)
	flag.Parse()
	if namespace == "" {
		namespace = defaultNamespace()
	}

	// Logs (and the audit trail) go to stderr: on stdio, stdout is the protocol.
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil)).With("component", "mcp-server")
	setLibraryLogger(log)
	memlimit.SetLogged(log.Info)
	fail := func(msg string, err error) {
		log.Error(msg, "err", err)
		os.Exit(1)
	}
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cwacv1alpha1.AddToScheme(scheme))
	restCfg, err := ctrl.GetConfig()
	if err != nil {
		fail("loading Kubernetes config", err)
	}
	c, err := client.New(restCfg, client.Options{Scheme: scheme})
	if err != nil {
		fail("creating Kubernetes client", err)
	}
	cs, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		fail("creating Kubernetes clientset", err)
	}
	policy, err := policyFlags.Build()
	if err != nil {
		fail("invalid scan-target policy", err)
	}
	bucket, err := openBucket(bucketCfg, log)
	if err != nil {
		fail("invalid results bucket settings", err)
	}
	var auth mcpserver.Authenticator
	var authorizer mcpserver.Authorizer
	var kubeAuth *mcpserver.KubernetesAuth
	switch authMode {
	case "kubernetes":
		kubeAuth = &mcpserver.KubernetesAuth{Clientset: cs, Audiences: urlpolicy.SplitList(audiences), CacheTTL: authCacheTTL}
		auth, authorizer = kubeAuth, kubeAuth
	case "token":
		token, err := readSecretFile("auth-token-file", tokenFile)
		if err != nil {
			fail("--auth=token needs a non-empty --auth-token-file", err)
		}
		auth = mcpserver.StaticTokenAuth{Token: token}
	case "none":
		auth = mcpserver.AnonymousAuth{}
		if transport == "http" {
			log.Warn("MCP authentication is switched off (--auth=none): anyone who reaches the port can start scans")
		}
	default:
		fail("invalid --auth", fmt.Errorf("%q is not kubernetes, token or none", authMode))
	}
	oauth, err := oauthFlags.build(dashboardFlags.signIn, authMode, kubeAuth)
	if err != nil {
		fail("invalid OAuth settings", err)
	}
	var resource *mcpserver.ProtectedResource
	if oauth != nil {
		auth, authorizer, resource = oauth, oauth, &oauth.Resource
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	scans := mcpserver.StartScanCache(ctx, restCfg, scheme, namespace, log)
	var grants mcpserver.GrantSource
	var decisions *mcpserver.DecisionSource
	if scans != nil {
		c = mcpserver.WithScanCache(c, scans)
		grants = mcpserver.WatchGrants(ctx, scans, namespace, log)
		decisions = mcpserver.WatchDecisions(ctx, scans, log)
	}
	mail, dashboardURL, err := digestFlags.server()
	if err != nil {
		fail("invalid digest settings", err)
	}
	eventReceivers, eventSender, err := eventFlags.sender(policyFlags.Lists)
	if err != nil {
		fail("invalid issue-event settings", err)
	}
	historyStore, err := startHistory(ctx, storeFlags, writerFlags, historyDeps{scans: scans, decisions: decisions, clientset: cs,
		namespace: namespace, resultsRoot: resultsRoot, bucket: bucket, log: log, client: c,
		digests:     &digestSettings{mail: mail, dashboardURL: dashboardURL},
		issueEvents: issueEventSettings{receivers: eventReceivers, http: eventSender}}, fail)
	if err != nil {
		fail("the issue history's store", err)
	}
	defer func() { _ = historyStore.Close() }() // at exit: every write was its own transaction
	srv, err := mcpserver.New(mcpserver.Config{
		Client: c, Clientset: cs, Namespace: namespace, ResultsRoot: resultsRoot, ResultsBucket: bucket, CompareDir: compareDir,
		CallTimeout: callTimeout, MaxResponseBytes: maxResponseBytes, MaxResults: maxResults,
		Version: version, Log: log, Policy: policy, Authorizer: authorizer, ReadOnly: readOnly,
		ScansPerMinute: scansPerMinute, ScanBurst: scanBurst, MaxURLs: maxURLs, History: historyStore,
		Grants: grants, Decisions: decisions,
	})
	if err != nil {
		fail("creating MCP server", err)
	}
	switch transport {
	case "stdio":
		log.Info("serving MCP on stdio", "namespace", namespace, "resultsRoot", resultsRoot)
		if err := srv.MCP().Run(ctx, &mcp.StdioTransport{}); err != nil && !errors.Is(err, context.Canceled) {
			fail("stdio transport", err)
		}
	case "http":
		conns := mcpserver.ConnLimits{PerCaller: maxConnsPerClient, Unauthenticated: maxUnauthConns}
		if err := conns.Check(); err != nil {
			fail("invalid connection limits", err)
		}
		dash := dashboardHandler(dashboardFlags, dashboardDeps{auth: auth, clientset: cs, client: c, grants: grants,
			decisions: decisions, writer: c, cache: cacheReader(scans), store: historyStore, namespace: namespace,
			resultsRoot: resultsRoot, bucket: bucket, log: log}, fail)
		hs := srv.NewHTTPServer(mcpserver.HTTPOptions{MaxRequestBytes: maxRequestBytes, Auth: auth, Conns: conns, Dashboard: dash,
			ProtectedResource: resource})
		go func() {
			<-ctx.Done()
			shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = hs.Shutdown(shutdown)
		}()
		log.Info("serving MCP over streamable HTTP", "addr", listen, "path", "/mcp", "dashboard", dash != nil,
			"namespace", namespace, "resultsRoot", resultsRoot, "auth", authMode, "readOnly", readOnly)
		listener, err := net.Listen("tcp", listen)
		if err != nil {
			fail("listening", err)
		}
		if err := hs.Serve(listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fail("http transport", err)
		}
	default:
		fmt.Fprintf(os.Stderr, "mcp-server: --transport must be http or stdio, not %q\n", transport)
		os.Exit(2)
	}
}

// defaultNamespace is the pod's namespace in a cluster, else the kubeconfig
// context's, else "default".
func defaultNamespace() string {
	if data, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil {
		if ns := strings.TrimSpace(string(data)); ns != "" {
			return ns
		}
	}
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if f := flag.Lookup("kubeconfig"); f != nil && f.Value.String() != "" {
		rules.ExplicitPath = f.Value.String()
	}
	if ns, _, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).Namespace(); err == nil && ns != "" {
		return ns
	}
	return "default"
}

// setLibraryLogger sends what controller-runtime and client-go log (an
// informer's watch closing, say) to the server's own log, at its level:
// without it controller-runtime prints a stack trace saying no logger was
// set, the first time either logs.
func setLibraryLogger(log *slog.Logger) {
	ctrl.SetLogger(logr.FromSlogHandler(log.Handler()))
}

// cacheReader is the informer cache as a reader, nil when there is none
// (a nil cache.Cache in a client.Reader would not compare equal to nil).
func cacheReader(c cache.Cache) client.Reader {
	if c == nil {
		return nil
	}
	return c
}
