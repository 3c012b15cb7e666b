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
