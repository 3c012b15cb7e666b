//go:build integration

package runner

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// refusedAddress listens on 127.0.0.2, which the tests' policy refuses,
// and counts the connections that reach it: none may.
func refusedAddress(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatalf("listening on 127.0.0.2: %v", err)
	}
	var reached atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			reached.Add(1)
			_ = c.Close()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		if n := reached.Load(); n != 0 {
			t.Errorf("%d connections reached the refused address", n)
		}
	})
	return ln.Addr().String()
}

// redirectingSite is a site on 127.0.0.1 whose every page redirects to
// target.
func redirectingSite(t *testing.T, target string) string {
	srv := httptest.NewServer(http.RedirectHandler(target, http.StatusFound))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// onlySiteHost opens 127.0.0.1 alone: 127.0.0.2 stays refused.
var onlySiteHost = urlpolicy.Lists{AllowCIDRs: "127.0.0.1/32"}

// TestRunSendsCWACThroughTheEgressProxy: CWAC runs with its proxy
// variables and Chrome's flags pointing at the runner's egress proxy (the
// pod's own proxy settings and proxy switches replaced), its requests go
// through it, and a site that redirects to a refused address gets nothing
// there: the refusal is in the report, its message and summary.json.
func TestRunSendsCWACThroughTheEgressProxy(t *testing.T) {
	python3, err := exec.LookPath("python3")
	must(t, err)
	refused := refusedAddress(t)
	cfg := validScan(t)
	cfg.Egress = onlySiteHost
	sites := []cwacconfig.Site{
		{Organisation: "Fine", URL: testSite(t), Sector: "S"},
		{Organisation: "Sneaky", URL: redirectingSite(t, "http://"+refused+"/latest/meta-data/"), Sector: "S"},
	}
	urls, err := cwacconfig.WriteBaseURLCSV(sites)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(cfg.ConfigMapDir, scanpod.URLsFile), urls, 0o644))
	envFile := filepath.Join(t.TempDir(), "cwac-env")
	cfg.Python = filepath.Join(t.TempDir(), "python")
	writeScript(t, cfg.Python, "env > "+envFile+"\nexec "+python3+` "$@"`+"\n")
	t.Setenv("CHROME_EXTRA_ARGS", "--no-sandbox, --no-proxy-server,-proxy-pac-url=http://x/p.pac,--disable-gpu")
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:9") // the pod's own: the proxy's upstream for https, which this scan does not use
	t.Setenv("NO_PROXY", "*")

	code, msg, out := runConfig(context.Background(), t, cfg)
	if code != 0 || msg.Outcome != scanpod.OutcomePartial {
		t.Fatalf("code %d, %s: %s\n%s", code, msg.Outcome, msg.Message, out)
	}
	data, err := os.ReadFile(envFile)
	must(t, err)
	env := map[string]string{}
	for _, kv := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	proxy := env["HTTP_PROXY"]
	if !strings.HasPrefix(proxy, "http://127.0.0.1:") {
		t.Fatalf("CWAC's HTTP_PROXY is %q, want the runner's proxy on loopback", proxy)
	}
	for _, name := range []string{"HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		if env[name] != proxy {
			t.Errorf("CWAC's %s is %q, want %q", name, env[name], proxy)
		}
	}
	if env["NO_PROXY"] != NoProxy || env["no_proxy"] != NoProxy {
		t.Errorf("CWAC's NO_PROXY is %q and no_proxy %q, want %q", env["NO_PROXY"], env["no_proxy"], NoProxy)
	}
	want := "--no-sandbox,--disable-gpu,--proxy-server=" + proxy + ",--proxy-bypass-list=<-loopback>,--webrtc-ip-handling-policy=disable_non_proxied_udp"
	if env["CHROME_EXTRA_ARGS"] != want {
		t.Errorf("CWAC's CHROME_EXTRA_ARGS is\n%q, want\n%q", env["CHROME_EXTRA_ARGS"], want)
	}

	b := msg.BlockedByPolicy
	if b == nil || b.Total != 1 || len(b.Hosts) != 1 || b.Hosts[0].Host != refused || b.Hosts[0].Rule != urlpolicy.RuleLoopback {
		t.Fatalf("the report's refusals: %+v", b)
	}
	if !strings.Contains(msg.Message, "blocked by policy: "+refused+" (loopback); 1 connection in all") {
		t.Errorf("the message does not name the refusal: %q", msg.Message)
	}
	summary := readSummary(t, filepath.Join(cfg.ResultsDir, msg.ResultsDir))
	if s := summary.BlockedByPolicy; s == nil || s.Total != 1 || s.Hosts[0].Host != refused || !strings.Contains(s.Hosts[0].Detail, "127.0.0.2") {
		t.Errorf("summary.json's refusals: %+v", s)
	}
	if len(summary.UnscannedBaseURLs) != 1 || summary.UnscannedBaseURLs[0] != sites[1].URL {
		t.Errorf("unscanned %v, want the redirecting site alone", summary.UnscannedBaseURLs)
	}
	if !strings.Contains(out, `msg="blocked by policy"`) || !strings.Contains(out, "url=http://"+refused+"/latest/meta-data/") {
		t.Errorf("the runner's log does not show the refusal:\n%s", out)
	}
}

// TestRunWithoutRefusals: a scan whose connections are all allowed
// reports none, and says nothing of them.
func TestRunWithoutRefusals(t *testing.T) {
	cfg := validScan(t)
	cfg.Egress = onlySiteHost
	must(t, os.WriteFile(filepath.Join(cfg.ConfigMapDir, scanpod.URLsFile), []byte("organisation,url,sector\nO,"+testSite(t)+",S\n"), 0o644))
	code, msg, out := runConfig(context.Background(), t, cfg)
	if code != 0 || msg.Outcome != scanpod.OutcomeComplete || msg.BlockedByPolicy != nil || strings.Contains(msg.Message, "blocked") {
		t.Fatalf("code %d, %s: %s, refusals %+v\n%s", code, msg.Outcome, msg.Message, msg.BlockedByPolicy, out)
	}
	if s := readSummary(t, filepath.Join(cfg.ResultsDir, msg.ResultsDir)); s.BlockedByPolicy != nil {
		t.Errorf("summary.json's refusals: %+v", s.BlockedByPolicy)
	}
}

// TestRunEgressProxyCannotStart: a policy the proxy cannot be built from,
// or an upstream proxy that is not http, stops the scan before CWAC: no
// scan runs unchecked.
func TestRunEgressProxyCannotStart(t *testing.T) {
	for _, tc := range []struct {
		name, env, want string
		lists           urlpolicy.Lists
	}{
		{name: "bad range", lists: urlpolicy.Lists{DenyCIDRs: "10.0.0.0/33"}, want: `invalid CIDR "10.0.0.0/33"`},
		{name: "socks upstream", env: "socks5://proxy.corp:1080", want: "HTTPS_PROXY: the upstream proxy must be an http:// URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := validScan(t)
			cfg.Egress = tc.lists
			t.Setenv("HTTPS_PROXY", tc.env)
			t.Setenv("STANDIN_EXIT", "7") // would show if CWAC ran
			code, msg, out := runConfig(context.Background(), t, cfg)
			if code != scanpod.ExitRunnerError || msg.Outcome != scanpod.OutcomeRunnerError ||
				!strings.Contains(msg.Message, "starting the egress proxy") || !strings.Contains(msg.Message, tc.want) {
				t.Errorf("code %d, %s: %q\n%s", code, msg.Outcome, msg.Message, out)
			}
		})
	}
}

// TestMergeAddsTheShardsRefusals: each shard's proxy refuses its own
// sites' redirects; the merged summary.json and report count them all.
func TestMergeAddsTheShardsRefusals(t *testing.T) {
	refused := refusedAddress(t)
	_, port, _ := net.SplitHostPort(refused)
	sites := []cwacconfig.Site{
		{Organisation: "A", URL: redirectingSite(t, "http://"+refused+"/a"), Sector: "S"},
		{Organisation: "B", URL: redirectingSite(t, "http://127.0.0.2:"+port+"/b"), Sector: "S"},
		{Organisation: "C", URL: testSite(t), Sector: "S"},
		{Organisation: "D", URL: redirectingSite(t, "http://169.254.169.254/latest/"), Sector: "S"},
	}
	s := newShardedScan(t, sites, 2)
	s.base.Egress = onlySiteHost
	total := int64(0)
	for i := range 2 {
		code, msg, out := s.run(t, "shard-"+strconv.Itoa(i), strconv.Itoa(i), nil)
		if code != 0 || msg.BlockedByPolicy == nil {
			t.Fatalf("shard %d: code %d, %s: %s, refusals %+v\n%s", i, code, msg.Outcome, msg.Message, msg.BlockedByPolicy, out)
		}
		total += msg.BlockedByPolicy.Total
	}
	code, merged, out := s.run(t, "merge", "unset", func(c *Config) { c.Merge = true })
	if code != 0 || total != 3 {
		t.Fatalf("merge: code %d, %s: %s (shards refused %d)\n%s", code, merged.Outcome, merged.Message, total, out)
	}
	summary := readSummary(t, filepath.Join(s.base.ResultsDir, merged.ResultsDir))
	if b := summary.BlockedByPolicy; b == nil || b.Total != 3 || len(b.Hosts) != 2 || b.Hosts[0].Host != refused || b.Hosts[0].Count != 2 {
		t.Errorf("merged summary.json's refusals: %+v", b)
	}
	if b := merged.BlockedByPolicy; b == nil || b.Total != 3 || len(b.Hosts) != 2 {
		t.Errorf("the merged report's refusals: %+v", b)
	}
	wantEnd := "; blocked by policy: " + refused + " (loopback), 169.254.169.254:80 (link-local); 3 connections in all"
	if !strings.HasPrefix(merged.Message, "merged 2 of 2 shards: ") || !strings.HasSuffix(merged.Message, wantEnd) {
		t.Errorf("merged message %q", merged.Message)
	}
}
