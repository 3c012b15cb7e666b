package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Defaults of the MCP server as the Helm chart installs it.
const (
	defaultMCPNamespace = "cwac-system"
	defaultMCPSelector  = "app.kubernetes.io/component=mcp-server"
	defaultMCPPort      = 8090
	mcpPortName         = "mcp"
	// maxMCPAnswerBytes caps what is read of one answer; the server caps its
	// answers far lower (--max-response-bytes, 512 KiB by default).
	maxMCPAnswerBytes = 32 << 20
	// mcpCallTimeout is asked of the server for each call (it caps it at its
	// own maximum).
	mcpCallTimeout = 60
)

// MCPConn is an open connection to the MCP server's HTTP routes.
type MCPConn struct {
	// BaseURL is where /execute is, e.g. http://127.0.0.1:40123.
	BaseURL string
	// Client sends the requests.
	Client *http.Client
	// Close ends the connection (stops the port-forward).
	Close func()
}

// MCPConnector opens a connection to the MCP server in namespace, with the
// user's API server configuration.
type MCPConnector interface {
	Connect(ctx context.Context, cfg *rest.Config, namespace string) (*MCPConn, error)
}

// mcpFlags say where the MCP server is.
type mcpFlags struct {
	namespace string
	selector  string
	pod       string
	url       string
}

func (f *mcpFlags) addFlags(fl *pflag.FlagSet) {
	fl.StringVar(&f.namespace, "mcp-namespace", defaultMCPNamespace,
		"namespace of the MCP server (where the chart is installed); result files can be read for scans in this namespace")
	fl.StringVar(&f.selector, "mcp-selector", defaultMCPSelector, "label selector of the MCP server's pods")
	fl.StringVar(&f.pod, "mcp-pod", "", "the MCP server pod to port-forward to (default: a ready pod matching --mcp-selector)")
	fl.StringVar(&f.url, "mcp-url", "",
		"reach the MCP server at this URL instead of a port-forward (e.g. http://localhost:18090 of your own port-forward); your token is sent to it")
}

// connector is the way to the MCP server these flags describe, unless the
// Options carry one.
func (f *mcpFlags) connector(o *Options) MCPConnector {
	if o.MCP != nil {
		return o.MCP
	}
	if f.url != "" {
		return StaticMCP{URL: strings.TrimRight(f.url, "/"), Client: &http.Client{Timeout: 2 * time.Minute}}
	}
	return &portForwardMCP{selector: f.selector, pod: f.pod}
}

// StaticMCP is an MCP server at a fixed URL (an httptest server in tests,
// or the user's own port-forward).
type StaticMCP struct {
	URL    string
	Client *http.Client
}

// Connect returns the fixed address.
func (m StaticMCP) Connect(context.Context, *rest.Config, string) (*MCPConn, error) {
	c := m.Client
	if c == nil {
		c = http.DefaultClient
	}
	return &MCPConn{BaseURL: m.URL, Client: c, Close: func() {}}, nil
}

// portForwardMCP reaches the MCP server's pod through the API server
// (pods/portforward over SPDY) on a loopback port of this machine.
type portForwardMCP struct {
	selector string
	pod      string
}

func (p *portForwardMCP) Connect(ctx context.Context, cfg *rest.Config, ns string) (*MCPConn, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	pod, port, err := p.findPod(ctx, cs, ns)
	if err != nil {
		return nil, err
	}
	rt, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		return nil, err
	}
	url := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("portforward").URL()
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: rt}, http.MethodPost, url)
	stop, ready := make(chan struct{}), make(chan struct{})
	var errOut bytes.Buffer
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{fmt.Sprintf("0:%d", port)}, stop, ready, io.Discard, &errOut)
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- fw.ForwardPorts() }()
	select {
	case <-ready:
	case err := <-done:
		return nil, portForwardError(err, ns, pod)
	case <-ctx.Done():
		close(stop)
		return nil, ctx.Err()
	}
	ports, err := fw.GetPorts()
	if err != nil || len(ports) == 0 {
		close(stop)
		return nil, fmt.Errorf("port-forward to pod %s/%s gave no local port: %v", ns, pod, err)
	}
	return &MCPConn{
		BaseURL: fmt.Sprintf("http://127.0.0.1:%d", ports[0].Local),
		Client:  &http.Client{Timeout: 2 * time.Minute},
		Close:   func() { close(stop) },
	}, nil
}

// findPod picks the named pod, or a running and ready one matching the
// selector, and its MCP port.
func (p *portForwardMCP) findPod(ctx context.Context, cs kubernetes.Interface, ns string) (string, int32, error) {
	var candidates []corev1.Pod
	if p.pod != "" {
		pod, err := cs.CoreV1().Pods(ns).Get(ctx, p.pod, metav1.GetOptions{})
		if err != nil {
			return "", 0, describeAPIError(err, fmt.Sprintf("get the MCP server pod %s/%s (--mcp-pod)", ns, p.pod))
		}
		candidates = []corev1.Pod{*pod}
	} else {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: p.selector})
		if err != nil {
			return "", 0, describeAPIError(err, fmt.Sprintf("list pods in %s to find the MCP server (--mcp-selector %s)", ns, p.selector))
		}
		candidates = pods.Items
	}
	for _, pod := range candidates {
		if pod.DeletionTimestamp == nil && pod.Status.Phase == corev1.PodRunning && podReady(&pod) {
			return pod.Name, mcpPort(&pod), nil
		}
	}
	if len(candidates) == 0 {
		return "", 0, fmt.Errorf("no MCP server pod in namespace %s matches %q: is the chart installed there with mcp.enabled? "+
			"(see --mcp-namespace, --mcp-selector)", ns, p.selector)
	}
	return "", 0, fmt.Errorf("no MCP server pod in namespace %s is running and ready (%d found)", ns, len(candidates))
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func mcpPort(pod *corev1.Pod) int32 {
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == mcpPortName {
				return p.ContainerPort
			}
		}
	}
	return defaultMCPPort
}

func portForwardError(err error, ns, pod string) error {
	if err == nil {
		err = errors.New("the port-forward ended before it was ready")
	}
	if apierrors.IsForbidden(err) || strings.Contains(err.Error(), "Forbidden") || strings.Contains(err.Error(), "forbidden") {
		return fmt.Errorf("the API server refused the port-forward to the MCP server pod %s/%s: "+
			"your RBAC needs create on pods/portforward in namespace %s: %v", ns, pod, ns, err)
	}
	return fmt.Errorf("port-forward to the MCP server pod %s/%s: %w", ns, pod, err)
}

// executeRequest and executeResponse are the MCP server's POST /execute
// body and answer (docs/mcp.md).
type executeRequest struct {
	ToolName  string  `json:"tool_name"`
	Arguments any     `json:"arguments"`
	Timeout   float64 `json:"timeout,omitempty"`
}

type executeResponse struct {
	Status string          `json:"status"`
	Output json.RawMessage `json:"output"`
	Error  string          `json:"error"`
}

// callTool runs one MCP tool through the REST route with the user's token
// and returns its output.
func callTool(ctx context.Context, conn *MCPConn, token, tool string, args any) (json.RawMessage, error) {
	body, err := json.Marshal(executeRequest{ToolName: tool, Arguments: args, Timeout: mcpCallTimeout})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, conn.BaseURL+"/execute", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := conn.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("calling the MCP server (%s): %w", tool, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxMCPAnswerBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the MCP server's answer (%s): %w", tool, err)
	}
	if len(data) > maxMCPAnswerBytes {
		return nil, fmt.Errorf("the MCP server's answer (%s) is larger than %d bytes", tool, maxMCPAnswerBytes)
	}
	var out executeResponse
	jsonErr := json.Unmarshal(data, &out)
	msg := out.Error
	if jsonErr != nil || msg == "" {
		msg = strings.TrimSpace(textcap.Head(string(data), 300))
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return nil, fmt.Errorf("the MCP server did not accept your token (401 Unauthorized): %s", msg)
	case resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("the MCP server refused %s (403 Forbidden): %s", tool, msg)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("the MCP server answered %s to %s: %s", resp.Status, tool, msg)
	case jsonErr != nil:
		return nil, fmt.Errorf("the MCP server's answer to %s is not JSON: %v", tool, jsonErr)
	case out.Status == "timeout":
		return nil, fmt.Errorf("%s timed out on the MCP server: %s", tool, msg)
	case out.Status != "success":
		return nil, fmt.Errorf("%s: %s", tool, msg)
	}
	return out.Output, nil
}

// withMCP connects to the MCP server for a command on a scan, refusing at
// once what cannot work: a scan in a namespace the server does not serve,
// or a kubeconfig without a bearer token.
func withMCP(ctx context.Context, o *Options, mf *mcpFlags, s *session, fn func(conn *MCPConn, token string) error) error {
	if s.namespace != mf.namespace {
		return fmt.Errorf("result files are read through the MCP server in namespace %s, which serves scans of that namespace only, "+
			"and this scan is in %s: use -n %s, or --mcp-namespace for a server installed elsewhere", mf.namespace, s.namespace, mf.namespace)
	}
	token, err := s.bearerToken()
	if err != nil {
		return err
	}
	conn, err := mf.connector(o).Connect(ctx, s.config, mf.namespace)
	if err != nil {
		return err
	}
	defer conn.Close()
	return fn(conn, token)
}

// callScanTool reads the scan first (a missing scan or namespace is said
// plainly before any connection is made), then calls one MCP tool on it
// through the MCP server with the user's token.
func callScanTool(cmd *cobra.Command, o *Options, mf *mcpFlags, name, tool string, args any) (json.RawMessage, error) {
	s, err := o.newSession()
	if err != nil {
		return nil, err
	}
	if _, err := s.getScan(cmd, name); err != nil {
		return nil, err
	}
	var raw json.RawMessage
	err = withMCP(cmd.Context(), o, mf, s, func(conn *MCPConn, token string) error {
		raw, err = callTool(cmd.Context(), conn, token, tool, args)
		return err
	})
	return raw, err
}
