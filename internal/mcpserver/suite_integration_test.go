//go:build integration

package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	corev1 "k8s.io/api/core/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/testutil/files"
)

var (
	cfg    *rest.Config
	k8s    client.Client
	scheme = runtime.NewScheme()
)

const fixtureDir = "../../testdata/cwac-results/2026-11-21_23-18-23_real-scan-1"

func TestMain(m *testing.M) {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cwacv1alpha1.AddToScheme(scheme))
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		assets, _ = filepath.Abs("../../bin/k8s/1.37.1-linux-amd64")
	}
	if _, err := os.Stat(filepath.Join(assets, "kube-apiserver")); err != nil {
		fmt.Fprintf(os.Stderr, "envtest binaries not found in %s: run 'make envtest-assets' (or set KUBEBUILDER_ASSETS)\n", assets)
		os.Exit(1)
	}
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
	}
	var err error
	if cfg, err = env.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "starting envtest:", err)
		os.Exit(1)
	}
	if k8s, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = env.Stop()
	os.Exit(code)
}

// syncBuffer collects audit log lines from concurrent calls.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}
func (b *syncBuffer) String() string { b.mu.Lock(); defer b.mu.Unlock(); return b.buf.String() }

type harness struct {
	t       *testing.T
	ns      string
	root    string
	srv     *Server
	session *mcp.ClientSession
	audit   *syncBuffer
	outputs map[string]*jsonschema.Resolved
}

func newHarness(t *testing.T, mutate ...func(*Config)) *harness {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "mcp-" + rand.String(8)}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return connectHarness(t, ns.Name, mutate...)
}

// connectHarness is a server for the namespace ns, with its own results
// root (a new directory) unless mutate sets another, and a client
// connected to it.
func connectHarness(t *testing.T, ns string, mutate ...func(*Config)) *harness {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	audit := &syncBuffer{}
	c := Config{
		Client: k8s, Clientset: cs, Namespace: ns, ResultsRoot: t.TempDir(),
		Log: slog.New(slog.NewJSONHandler(audit, nil)),
	}
	for _, m := range mutate {
		m(&c)
	}
	srv, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Teardown only: the test has its answers, and a failed close changes none.
	t.Cleanup(func() { _ = session.Close() })
	return &harness{t: t, ns: ns, root: c.ResultsRoot, srv: srv, session: session, audit: audit}
}

// call invokes a tool through the MCP client and returns its structured
// output, or its error text.
func (h *harness) call(name string, args map[string]any) (map[string]any, string) {
	h.t.Helper()
	res, err := h.session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		h.t.Fatalf("%s: protocol error: %v", name, err)
	}
	if res.IsError {
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		return nil, text
	}
	out, ok := res.StructuredContent.(map[string]any)
	if !ok {
		h.t.Fatalf("%s: structured content %T", name, res.StructuredContent)
	}
	// The server does not check its answers against the output schemas it
	// advertises (they are made from the answers' types): every answer a
	// test gets is checked here instead.
	if err := h.outputSchema(name).Validate(out); err != nil {
		h.t.Fatalf("%s: the answer does not match the tool's output schema: %v", name, err)
	}
	return out, ""
}

// outputSchema is the output schema tools/list gives for the tool.
func (h *harness) outputSchema(name string) *jsonschema.Resolved {
	h.t.Helper()
	if h.outputs == nil {
		h.outputs = map[string]*jsonschema.Resolved{}
		list, err := h.session.ListTools(context.Background(), nil)
		if err != nil {
			h.t.Fatalf("tools/list: %v", err)
		}
		for _, tool := range list.Tools {
			data, err := json.Marshal(tool.OutputSchema)
			if err != nil {
				h.t.Fatal(err)
			}
			schema := &jsonschema.Schema{}
			if err := json.Unmarshal(data, schema); err != nil {
				h.t.Fatalf("%s: output schema: %v", tool.Name, err)
			}
			if h.outputs[tool.Name], err = schema.Resolve(nil); err != nil {
				h.t.Fatalf("%s: output schema: %v", tool.Name, err)
			}
		}
	}
	schema, ok := h.outputs[name]
	if !ok {
		h.t.Fatalf("tools/list has no tool %s", name)
	}
	return schema
}

func (h *harness) mustCall(name string, args map[string]any) map[string]any {
	h.t.Helper()
	out, errText := h.call(name, args)
	if errText != "" {
		h.t.Fatalf("%s(%v): %s", name, args, errText)
	}
	return out
}

// completeScan plays the operator: it puts real CWAC output where the scan's
// status says and marks the scan Complete.
func (h *harness) completeScan(name string) string {
	h.t.Helper()
	scan := &cwacv1alpha1.CwacScan{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: name}, scan); err != nil {
		h.t.Fatal(err)
	}
	rel := scanspec.ScanDir(scan) + "/2026-11-21_23-18-23_" + scanspec.AuditName(scan)
	copyFixture(h.t, filepath.Join(h.root, rel))
	now := metav1.Now()
	code := int32(0)
	scan.Status = cwacv1alpha1.CwacScanStatus{
		Phase: cwacv1alpha1.PhaseComplete, ResultsPath: rel, StartTime: &metav1.Time{Time: now.Add(-135 * time.Second)}, CompletionTime: &now,
		ExitCode: &code, JobName: scanspec.JobName(scan), Message: "scanned 4 pages, found 17 issues",
		Summary: &cwacv1alpha1.ScanSummary{TotalIssues: 17, PagesScanned: 4, DurationSeconds: 32},
	}
	if err := k8s.Status().Update(context.Background(), scan); err != nil {
		h.t.Fatal(err)
	}
	return rel
}

func (h *harness) setStatus(name string, st cwacv1alpha1.CwacScanStatus) {
	h.t.Helper()
	scan := &cwacv1alpha1.CwacScan{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: name}, scan); err != nil {
		h.t.Fatal(err)
	}
	scan.Status = st
	if err := k8s.Status().Update(context.Background(), scan); err != nil {
		h.t.Fatal(err)
	}
}

// copyFixture copies the real CWAC results directory (fixtureDir) to dst.
func copyFixture(t *testing.T, dst string) {
	t.Helper()
	if err := files.CopyDir(fixtureDir, dst); err != nil {
		t.Fatal(err)
	}
}
