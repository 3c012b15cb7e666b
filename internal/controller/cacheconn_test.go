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

// TestRequestsInParallel: the operator's client asks for HTTP/1.1 only,
// on a copy of the config.
func TestRequestsInParallel(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:6443", TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	got := RequestsInParallel(cfg)
	if len(got.NextProtos) != 1 || got.NextProtos[0] != "http/1.1" {
		t.Errorf("next protocols %v, want only http/1.1", got.NextProtos)
	}
	if cfg.NextProtos != nil {
		t.Errorf("the caller's config was changed: %v", cfg.NextProtos)
	}
}
