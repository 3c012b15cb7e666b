package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
)

const benchNamespace = "bench"

// apiServer is a local control plane (envtest: etcd and kube-apiserver on
// loopback) holding the CRDs and the benchmark's scans.
type apiServer struct {
	env    *envtest.Environment
	cfg    *rest.Config
	scheme *runtime.Scheme
	client client.Client
}

// startAPIServer starts the control plane; with auditLog set, the API
// server writes every request's metadata there (auditPolicy).
func startAPIServer(assets, auditLog string) (*apiServer, error) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cwacv1alpha1.AddToScheme(scheme))
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("config", "crd", "bases")},
		BinaryAssetsDirectory: assets,
		ErrorIfCRDPathMissing: true,
	}
	if auditLog != "" {
		policy := filepath.Join(filepath.Dir(auditLog), "audit-policy.yaml")
		if err := os.WriteFile(policy, []byte(auditPolicy), 0o644); err != nil {
			return nil, err
		}
		_ = os.Remove(auditLog) // a log of an earlier run would count too
		env.ControlPlane.GetAPIServer().Configure().
			Set("audit-policy-file", policy).
			Set("audit-log-path", auditLog).
			Set("audit-log-format", "json").
			Set("audit-log-mode", "blocking")
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("starting envtest (binaries in %s; make envtest-assets provides them): %w", assets, err)
	}
	cfg.QPS, cfg.Burst = 2000, 4000
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		_ = env.Stop()
		return nil, err
	}
	return &apiServer{env: env, cfg: cfg, scheme: scheme, client: c}, nil
}

func (a *apiServer) stop() { _ = a.env.Stop() }

// createScans creates n finished CwacScans in namespace ns whose results
// are d.scanDir(i).
func (a *apiServer) createScans(ctx context.Context, d *dataset, ns string, n int) error {
	if err := a.client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	work := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := a.createScan(ctx, d, ns, i); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs // nil when there was none
}

func (a *apiServer) createScan(ctx context.Context, d *dataset, ns string, i int) error {
	name := fmt.Sprintf("scan-%04d", i)
	scan := &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       cwacv1alpha1.CwacScanSpec{URLs: []string{"https://www.example.govt.nz/", "https://www.example.org.nz/"}, AuditName: name},
	}
	if err := a.client.Create(ctx, scan); err != nil {
		return err
	}
	now := metav1.Now()
	code := int32(0)
	scan.Status = cwacv1alpha1.CwacScanStatus{
		Phase: cwacv1alpha1.PhaseComplete, ResultsPath: d.scanDir(i), StartTime: &metav1.Time{Time: now.Add(-135 * time.Second)},
		CompletionTime: &now, ExitCode: &code, JobName: name, Message: "scanned 4 pages, found 17 issues",
		Summary: &cwacv1alpha1.ScanSummary{TotalIssues: 17, PagesScanned: 4, DurationSeconds: 32},
	}
	return a.client.Status().Update(ctx, scan)
}

// mcpSession serves an MCP server in memory and connects a client to it,
// so calls take the tools' whole path but the network.
func mcpSession(ctx context.Context, cfg mcpserver.Config) (*mcp.ClientSession, error) {
	cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := mcpserver.New(cfg)
	if err != nil {
		return nil, err
	}
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	return mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(ctx, ct, nil)
}

// latency is the spread of repeated calls.
type latency struct{ p50, p95, max time.Duration }

func measure(n int, fn func() error) (latency, error) {
	times := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := fn(); err != nil {
			return latency{}, err
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	return latency{p50: times[len(times)/2], p95: times[(len(times)*95+99)/100-1], max: times[len(times)-1]}, nil
}

// callTool calls a tool and fails on a tool error.
func callTool(ctx context.Context, s *mcp.ClientSession, name string, args map[string]any) (map[string]any, error) {
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		return nil, fmt.Errorf("%s: %s", name, text)
	}
	out, _ := res.StructuredContent.(map[string]any)
	return out, nil
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
