package controller

import (
	"testing"

	"k8s.io/client-go/rest"
)

// TestCacheHTTPClientHasItsOwnTransport: the cache's client never shares a
// transport (and so a connection) with the other clients of the config,
// with or without TLS.
func TestCacheHTTPClientHasItsOwnTransport(t *testing.T) {
	for name, cfg := range map[string]*rest.Config{
		"plain": {Host: "http://127.0.0.1:6443"},
		"tls":   {Host: "https://127.0.0.1:6443", TLSClientConfig: rest.TLSClientConfig{Insecure: true}},
	} {
		shared, err := rest.HTTPClientFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		again, err := rest.HTTPClientFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if shared.Transport != again.Transport {
			t.Fatalf("%s: client-go no longer shares a config's transport: the test proves nothing", name)
		}
		own, err := CacheHTTPClient(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if own.Transport == shared.Transport {
			t.Errorf("%s: the cache's client shares the transport of the config's other clients", name)
		}
		if cfg.Dial != nil {
			t.Errorf("%s: the caller's config was changed", name)
		}
	}
}
