// Package mailpit starts a real SMTP server for tests: mailpit, built from
// the Go module proxy by hack/tools.sh (the path in $MAILPIT), on free
// loopback ports, with a certificate the test makes and a password file,
// so that what the product sends over SMTP (STARTTLS or TLS from the first
// byte, with authentication) is received by a server that implements it,
// and read back through mailpit's own API.
package mailpit

import (
	"crypto/sha1" //nolint:gosec // htpasswd's {SHA} form, for a test account
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/testutil/freeport"
	"github.com/a11y-dev/cwac-operator/internal/testutil/proc"
	"github.com/a11y-dev/cwac-operator/internal/testutil/testcert"
	"github.com/a11y-dev/cwac-operator/internal/testutil/wait"
)

// Mode is how the server expects the connection to be protected.
type Mode int

const (
	// RequireStartTLS accepts a plain connection that must be upgraded
	// with STARTTLS before anything is sent.
	RequireStartTLS Mode = iota
	// RequireTLS accepts TLS from the first byte only (as port 465 does).
	RequireTLS
)

// Server is a running mailpit.
type Server struct {
	// Host and Port are its SMTP address on loopback.
	Host string
	Port int
	// Username and Password are the one account it accepts.
	Username, Password string
	// RootCAs trusts its certificate (made for 127.0.0.1).
	RootCAs *x509.CertPool
	api     string
}

// Start starts mailpit, stopped when the test ends. It fails the test
// (never skips it) when $MAILPIT is not set, saying how to build it.
func Start(t testing.TB, mode Mode) *Server {
	t.Helper()
	bin := proc.Binary(t, "MAILPIT", "mailpit", "a real SMTP server")
	dir := t.TempDir()
	certFile, keyFile, pool := testcert.Loopback(t, dir, "mailpit test")
	s := &Server{Host: "127.0.0.1", Username: "digest-sender", Password: "correct horse battery staple", RootCAs: pool}
	authFile := filepath.Join(dir, "smtp-auth")
	// htpasswd's {SHA} form: a hash mailpit's password file reads, made
	// with the standard library (the password is the test's own).
	sum := sha1.Sum([]byte(s.Password)) //nolint:gosec // the format's hash, for a throwaway test account
	if err := os.WriteFile(authFile, []byte(s.Username+":{SHA}"+base64.StdEncoding.EncodeToString(sum[:])+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ports := freeport.Ports(t, 2)
	smtpPort, apiPort := ports[0], ports[1]
	s.Port, s.api = smtpPort, "http://127.0.0.1:"+strconv.Itoa(apiPort)
	args := []string{
		"--smtp", "127.0.0.1:" + strconv.Itoa(smtpPort), "--listen", "127.0.0.1:" + strconv.Itoa(apiPort),
		"--smtp-tls-cert", certFile, "--smtp-tls-key", keyFile, "--smtp-auth-file", authFile,
		"--database", filepath.Join(dir, "mailpit.db"), "--smtp-disable-rdns", "--disable-version-check", "--quiet",
	}
	if mode == RequireTLS {
		args = append(args, "--smtp-require-tls")
	} else {
		args = append(args, "--smtp-require-starttls")
	}
	server := proc.Start(t, "mailpit", dir, bin, args...)
	wait.For(t, "mailpit's API to answer", time.Minute, func() (bool, error) {
		_, err := s.Messages()
		if ended := server.Ended(); ended != nil {
			t.Fatalf("mailpit did not start: %v (last answer: %v)", ended, err)
		}
		return err == nil, err
	})
	return s
}

// Message is a message as mailpit received it.
type Message struct {
	ID        string
	MessageID string
	Subject   string
	From      Address
	To        []Address
	Text      string
	HTML      string
}

// Address is a sender or recipient.
type Address struct {
	Name    string
	Address string
}

// Messages lists what the server has received, newest first, each read whole.
func (s *Server) Messages() ([]Message, error) {
	var list struct {
		Messages []struct{ ID string } `json:"messages"`
	}
	if err := s.get("/api/v1/messages", &list); err != nil {
		return nil, err
	}
	out := make([]Message, 0, len(list.Messages))
	for _, m := range list.Messages {
		var full Message
		if err := s.get("/api/v1/message/"+m.ID, &full); err != nil {
			return nil, err
		}
		out = append(out, full)
	}
	return out, nil
}

func (s *Server) get(path string, into any) error {
	resp, err := http.Get(s.api + path) //nolint:noctx // loopback, the test's own server
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("mailpit %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(into)
}
