package runner

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// CWAC's environment names the runner's proxy for every scheme, in both
// cases, whatever the pod's own settings were; NO_PROXY keeps
// chromedriver's localhost alone; Chrome's flags lose every proxy switch
// and gain the runner's.
func TestProxiedEnv(t *testing.T) {
	const proxy = "http://127.0.0.1:4321"
	proxied := []string{
		"HTTP_PROXY=" + proxy, "HTTPS_PROXY=" + proxy, "ALL_PROXY=" + proxy, "NO_PROXY=localhost",
		"http_proxy=" + proxy, "https_proxy=" + proxy, "all_proxy=" + proxy, "no_proxy=localhost",
	}
	flags := strings.Join(ChromeProxyFlags(proxy), ",")
	tests := []struct {
		name string
		env  []string
		want []string
	}{
		{name: "nothing set", env: nil, want: append(proxied, "CHROME_EXTRA_ARGS="+flags)},
		{
			name: "the pod's proxy settings replaced",
			env: []string{
				"A=1", "HTTPS_PROXY=http://corp:3128", "https_proxy=http://corp:3128", "NO_PROXY=*", "no_proxy=.internal",
				"ALL_PROXY=socks5://x", "HTTP_PROXY_EXTRA=kept", "B=2",
			},
			want: append(append([]string{"A=1", "HTTP_PROXY_EXTRA=kept", "B=2"}, proxied...), "CHROME_EXTRA_ARGS="+flags),
		},
		{
			name: "Chrome's flags",
			env:  []string{"CHROME_EXTRA_ARGS=--no-sandbox,--disable-gpu , ,--disable-dev-shm-usage"},
			want: append(proxied, "CHROME_EXTRA_ARGS=--no-sandbox,--disable-gpu,--disable-dev-shm-usage,"+flags),
		},
		{
			name: "proxy switches however written",
			env: []string{"CHROME_EXTRA_ARGS=--no-proxy-server,-proxy-server=http://evil:1,--PROXY-PAC-URL=http://x/p.pac," +
				"--proxy-auto-detect, --proxy-bypass-list=*,--webrtc-ip-handling-policy=default,--proxy-server-extra,--headless"},
			want: append(proxied, "CHROME_EXTRA_ARGS=--proxy-server-extra,--headless,"+flags),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]string(nil), tt.env...)
			if diff := cmp.Diff(tt.want, proxiedEnv(in, proxy)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.env, in); diff != "" {
				t.Errorf("proxiedEnv changed its input:\n%s", diff)
			}
		})
	}
}

func TestChromeProxyFlags(t *testing.T) {
	want := []string{"--proxy-server=http://127.0.0.1:1", "--proxy-bypass-list=<-loopback>", "--webrtc-ip-handling-policy=disable_non_proxied_udp"}
	if diff := cmp.Diff(want, ChromeProxyFlags("http://127.0.0.1:1")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// The report's message names the refusals after what it said, and the
// log counts them; a report with none is left alone.
func TestReportBlocked(t *testing.T) {
	log, buf := captureLog()
	b := &results.BlockedConnections{}
	for _, h := range []string{"a:1", "b:2", "c:3", "d:4"} {
		b.Add(h, "private", "", 1)
	}
	msg := scanpod.Report{Message: "scanned 3 pages, found 2 issues", BlockedByPolicy: b}
	reportBlocked(&msg, Config{Log: log})
	want := "scanned 3 pages, found 2 issues; blocked by policy: a:1 (private), b:2 (private), c:3 (private) and 1 more host; 4 connections in all"
	if msg.Message != want {
		t.Errorf("message %q, want %q", msg.Message, want)
	}
	if !strings.Contains(buf.String(), "connections blocked by policy") || !strings.Contains(buf.String(), "total=4") {
		t.Errorf("log: %s", buf.String())
	}
	none := scanpod.Report{Message: "scanned"}
	reportBlocked(&none, Config{Log: slog.New(slog.DiscardHandler)})
	if none.Message != "scanned" {
		t.Errorf("a report with no refusals became %q", none.Message)
	}
}

// A shard's refusals come from its summary.json, bounded as a pod's record
// is: its hosts beyond the listed limit and any negative count dropped.
func TestShardSummaryRefusals(t *testing.T) {
	hosts := make([]string, 0, results.MaxBlockedHosts+5)
	for i := range results.MaxBlockedHosts + 5 {
		hosts = append(hosts, `{"host":"h`+strings.Repeat("x", i)+`:80","rule":"private","count":1}`)
	}
	hosts[0] = `{"host":"first:80","rule":"link-local","count":-5}`
	data := `{"duration_seconds": 2, "blocked_by_policy": {"total": 200, "hosts": [` + strings.Join(hosts, ",") + `]}}`
	dir := t.TempDir()
	must(t, os.Mkdir(filepath.Join(dir, "r"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "r", results.SummaryFile), []byte(data), 0o644))
	log, _ := captureLog()
	took, b := shardSummary(openRootT(t, dir), "r", Config{Log: log})
	if took != 2 || b == nil || b.Total != 200 || len(b.Hosts) != results.MaxBlockedHosts || b.Hosts[0].Count != 0 {
		t.Errorf("duration %v, refusals %+v", took, b)
	}
	must(t, os.WriteFile(filepath.Join(dir, "r", results.SummaryFile), []byte(`{"duration_seconds": 2}`), 0o644))
	if _, b := shardSummary(openRootT(t, dir), "r", Config{Log: log}); b != nil {
		t.Errorf("no refusals read as %+v", b)
	}
}
