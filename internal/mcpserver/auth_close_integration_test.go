//go:build integration

package mcpserver

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A caller with bad credentials gets its 401 and the connection closes at
// once, rather than being held until the announced body's read deadline.
func TestBadCredentialsCloseTheConnection(t *testing.T) {
	h := newHarness(t)
	srv := httptest.NewServer(h.srv.Handler(HTTPOptions{Auth: StaticTokenAuth{Token: "right"}, BodyReadTimeout: time.Minute}))
	defer srv.Close()
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer closeReadOnly(conn)
	// A large body announced and never sent.
	if _, err := io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: "+strings.TrimPrefix(srv.URL, "http://")+
		"\r\nAuthorization: Bearer wrong\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	// Far below the body's one-minute deadline: the connection must be gone by then.
	_ = conn.SetReadDeadline(time.Now().Add(15 * time.Second))
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body) // the error text
	closeReadOnly(resp.Body)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("HTTP %d, want 401", resp.StatusCode)
	}
	if _, err := r.ReadByte(); err != io.EOF {
		t.Errorf("after the 401 the connection was not closed: %v", err)
	}
}
