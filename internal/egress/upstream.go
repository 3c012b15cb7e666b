package egress

import (
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpproxy"
)

// UpstreamFromEnv is the upstream proxy the scan pod's environment names:
// HTTPS_PROXY for tunnels, HTTP_PROXY for plain http, NO_PROXY for
// destinations reached directly (each also in lower case, as curl and
// Python read them), as the chart's scans.env sets them for clusters whose
// pods reach the internet only through a proxy. Nil when none is set. The
// runner reads them before it points CWAC at its own proxy. Only http://
// proxies are supported: another scheme is an error.
func UpstreamFromEnv(getenv func(string) string) (func(*url.URL) (*url.URL, error), error) {
	either := func(upper string) string {
		if v := getenv(upper); v != "" {
			return v
		}
		return getenv(strings.ToLower(upper))
	}
	cfg := httpproxy.Config{HTTPProxy: either("HTTP_PROXY"), HTTPSProxy: either("HTTPS_PROXY"), NoProxy: either("NO_PROXY")}
	if cfg.HTTPProxy == "" && cfg.HTTPSProxy == "" {
		return nil, nil
	}
	for name, v := range map[string]string{"HTTP_PROXY": cfg.HTTPProxy, "HTTPS_PROXY": cfg.HTTPSProxy} {
		if v == "" {
			continue
		}
		if !strings.Contains(v, "://") {
			v = "http://" + v // as httpproxy reads it
		}
		u, err := url.Parse(v)
		if err != nil || u.Scheme != schemeHTTP || u.Host == "" {
			return nil, fmt.Errorf("%s: the upstream proxy must be an http:// URL with a host, got %q", name, redact(v))
		}
	}
	return cfg.ProxyFunc(), nil
}

// redact hides a password in a proxy setting quoted in an error.
func redact(v string) string {
	if u, err := url.Parse(v); err == nil {
		return u.Redacted()
	}
	return "(unparsable)"
}
