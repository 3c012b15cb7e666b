package controller

import (
	"net"
	"net/http"

	"k8s.io/client-go/rest"
)

// CacheHTTPClient is the HTTP client of the manager's cache
// (cache.Options.HTTPClient): the watches get a connection to the API
// server of their own instead of sharing the one the operator's writes use.
// Over HTTP/2 a process's requests share one connection, and while the
// operator wrote the status, ConfigMap and Job of a burst of new scans its
// watches fell seconds behind: in make bench (latency), a scan created right
// after a burst of 1,000 reached the cache 5-9 s after its create on the
// shared connection and 0.1-0.7 s after on a connection of its own, while a
// watch from another process saw it within a second either way. A dialer of
// its own is what makes client-go build a transport (and so a connection)
// that is not shared with the other clients of cfg (a config that has a
// dialer already gets a transport of its own each time).
func CacheHTTPClient(cfg *rest.Config) (*http.Client, error) {
	own := rest.CopyConfig(cfg)
	if own.Dial == nil {
		own.Dial = (&net.Dialer{}).DialContext
	}
	return rest.HTTPClientFor(own)
}

// RequestsInParallel is cfg (a copy) for the operator's own client: its
// requests go over HTTP/1.1, each on a connection of its own from a pool,
// instead of all sharing one HTTP/2 connection. A reconcile mostly waits
// for the API server, and the scan and admission controllers run dozens
// at once; over one HTTP/2 connection their writes queued behind each
// other in that one connection. Measured in make bench (latency, 2 cores,
// quiet): a burst of 1,000 new scans had its Jobs in 2.6 / 10.7 s (p50 /
// p95) over HTTP/2 and 0.30 / 0.44 s over HTTP/1.1, and a scan created
// right after it in 213 / 447 ms against 18 / 76 ms; on an idle operator
// the two are alike. The price is a connection per request in flight (the
// pool keeps 25 idle ones) where HTTP/2 kept one.
func RequestsInParallel(cfg *rest.Config) *rest.Config {
	own := rest.CopyConfig(cfg)
	own.NextProtos = []string{"http/1.1"}
	return own
}
