//go:build integration

package controller

import (
	"net/http"
	"testing"

	"k8s.io/client-go/rest"
)

// TestRequestsInParallelSpeakHTTP1: against a real API server, the
// operator's client speaks HTTP/1.1 where the config alone gets HTTP/2
// (so the test would notice client-go or the server ignoring the choice).
func TestRequestsInParallelSpeakHTTP1(t *testing.T) {
	proto := func(c *rest.Config) string {
		t.Helper()
		client, err := rest.HTTPClientFor(c)
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequestWithContext(ctxT(t), http.MethodGet, c.Host+"/version", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.Proto
	}
	if p := proto(cfg); p != "HTTP/2.0" {
		t.Fatalf("the config alone speaks %s, not HTTP/2.0: the test proves nothing", p)
	}
	if p := proto(RequestsInParallel(cfg)); p != "HTTP/1.1" {
		t.Errorf("the operator's client speaks %s, want HTTP/1.1", p)
	}
}
