package runner

import (
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/egress"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// The scan's traffic goes through the pod's egress proxy (internal/egress),
// which checks every connection against the scan-target policy when it is
// made. The runner starts it on loopback before CWAC and points CWAC's own
// HTTP requests and its browser at it.

// startEgress starts the egress proxy with the policy lists the runner was
// given, names resolved by the pod's resolver, and the upstream proxy the
// pod's environment names, if any.
func startEgress(cfg Config, getenv func(string) string) (*egress.Proxy, error) {
	pc, err := cfg.Egress.Config()
	if err != nil {
		return nil, fmt.Errorf("the scan-target policy: %w", err)
	}
	pc.Resolver = net.DefaultResolver
	upstream, err := egress.UpstreamFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	return egress.Start(egress.Config{Policy: urlpolicy.New(pc), Log: cfg.Log.With("part", "egress-proxy"), Upstream: upstream})
}

// proxyVariables name a proxy to CWAC's Python (requests and urllib read
// both cases).
var proxyVariables = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy"}

// NoProxy is the one destination CWAC reaches without the proxy:
// chromedriver, which Selenium drives at http://localhost:<port> inside the
// pod (Selenium skips the proxy for an address containing a NO_PROXY
// entry). Python's requests skips it for names ending in "localhost" too;
// inside the pod those are the pod's own loopback (chromedriver, Chrome's
// debugging port) unless the cluster's DNS serves such names.
const NoProxy = "localhost"

// ChromeProxyFlags are the Chrome flags that send every connection of the
// browser through the proxy at proxyURL: loopback too (Chrome skips the
// proxy for localhost unless told "<-loopback>"), and WebRTC with no UDP
// outside it (a page's STUN and TURN over UDP would go straight to any
// address it names; the switch sets Chrome's webrtc.ip_handling_policy
// preference over the profile's, and the browser test shows no datagram
// leaves with it, four without).
func ChromeProxyFlags(proxyURL string) []string {
	return []string{
		"--proxy-server=" + proxyURL,
		"--proxy-bypass-list=<-loopback>",
		"--webrtc-ip-handling-policy=disable_non_proxied_udp",
	}
}

// chromeProxySwitches are the Chrome switches that would take precedence
// over --proxy-server (no proxy, auto-detection, a PAC script), or change
// what ChromeProxyFlags set: the runner removes them from
// CHROME_EXTRA_ARGS, whoever put them there.
var chromeProxySwitches = []string{
	"proxy-server", "proxy-bypass-list", "proxy-pac-url", "proxy-auto-detect", "no-proxy-server", "webrtc-ip-handling-policy",
}

// proxiedEnv is env (CWAC's environment) with every request of CWAC
// through the proxy at proxyURL: the proxy variables name it (the pod's
// own, which the proxy takes as its upstream, are replaced), NO_PROXY is
// NoProxy alone, and CHROME_EXTRA_ARGS loses any proxy switch and gains
// ChromeProxyFlags.
func proxiedEnv(env []string, proxyURL string) []string {
	out := make([]string, 0, len(env)+len(proxyVariables)+1)
	var chromeArgs string
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		switch {
		case name == "CHROME_EXTRA_ARGS":
			chromeArgs = value
		case !slices.Contains(proxyVariables, name):
			out = append(out, kv)
		}
	}
	for _, name := range proxyVariables {
		value := proxyURL
		if strings.EqualFold(name, "NO_PROXY") {
			value = NoProxy
		}
		out = append(out, name+"="+value)
	}
	return append(out, "CHROME_EXTRA_ARGS="+strings.Join(append(withoutProxySwitches(chromeArgs), ChromeProxyFlags(proxyURL)...), ","))
}

// withoutProxySwitches splits CHROME_EXTRA_ARGS as CWAC does (on commas,
// blanks dropped) and leaves out the proxy switches, however written
// (Chrome takes "-switch" and "--switch", with or without a value).
func withoutProxySwitches(args string) []string {
	var out []string
	for _, a := range strings.Split(args, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		name, _, _ := strings.Cut(strings.ToLower(strings.TrimLeft(a, "-")), "=")
		if !slices.Contains(chromeProxySwitches, name) {
			out = append(out, a)
		}
	}
	return out
}
