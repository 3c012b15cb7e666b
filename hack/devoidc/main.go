// Command devoidc is an OpenID Connect provider for LOCAL DEVELOPMENT
// ONLY (internal/testutil/devoidc): hack/cluster/demo.sh starts it so that people
// who run the product with make run can sign in to the web dashboard in
// a browser. It listens on 127.0.0.1 alone; it is not part of the
// operator's image.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/testutil/devoidc"
)

// stringList is a repeatable flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	if err := run(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "devoidc:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("devoidc", flag.ContinueOnError)
	port := fs.Int("port", 5556, "port on 127.0.0.1 to listen on; the issuer is http://127.0.0.1:<port>")
	clientID := fs.String("client-id", "cwac-dashboard", "the one client's ID")
	secretFile := fs.String("client-secret-file", "", "file holding the client's secret; made with a random secret (mode 0600) if missing or empty (required)")
	passwordFile := fs.String("password-file", "", "file holding the users' password; made with a random password (mode 0600) if missing or empty (required)")
	var redirects, users, audience stringList
	fs.Var(&redirects, "redirect-uri", "the client's callback URL, compared exactly (repeatable; at least one)")
	fs.Var(&users, "user", "a user, EMAIL or EMAIL:GROUP,GROUP (repeatable; default dev@example.org:cwac-viewers)")
	fs.Var(&audience, "access-token-audience", "a resource the access tokens are for, e.g. the MCP server's http://127.0.0.1:8090/mcp "+
		"(repeatable; given, access tokens are JWTs naming these and the client in their audience)")
	fs.Usage = func() {
		_, _ = fmt.Fprint(fs.Output(), `devoidc: an OpenID Connect provider for LOCAL DEVELOPMENT ONLY.

It signs in development users with a password on a small login page, for
the web dashboard of a product run on this machine (make run). It listens
on 127.0.0.1 only, keeps everything in memory, and must never be used as
the provider of a real deployment.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case *port < 1 || *port > 65535:
		return fmt.Errorf("--port %d is not a port (1-65535)", *port)
	case *secretFile == "":
		return errors.New("--client-secret-file is required")
	case *passwordFile == "":
		return errors.New("--password-file is required")
	case len(redirects) == 0:
		return errors.New("--redirect-uri is required (the client's callback, e.g. http://127.0.0.1:8090/oauth2/callback)")
	}
	if len(users) == 0 {
		users = stringList{"dev@example.org:cwac-viewers"}
	}
	cfg := devoidc.Config{Issuer: "http://127.0.0.1:" + strconv.Itoa(*port), ClientID: *clientID, RedirectURIs: redirects, AccessTokenAudience: audience,
		Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	for _, u := range users {
		email, groups, _ := strings.Cut(u, ":")
		user := devoidc.User{Email: email}
		for g := range strings.SplitSeq(groups, ",") {
			if g = strings.TrimSpace(g); g != "" {
				user.Groups = append(user.Groups, g)
			}
		}
		cfg.Users = append(cfg.Users, user)
	}
	var err error
	if cfg.ClientSecret, err = secretFrom(*secretFile, "--client-secret-file"); err != nil {
		return err
	}
	if cfg.Password, err = secretFrom(*passwordFile, "--password-file"); err != nil {
		return err
	}
	p, err := devoidc.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	names := make([]string, len(cfg.Users))
	for i, u := range cfg.Users {
		names[i] = u.Email
	}
	fmt.Fprintf(os.Stderr, "devoidc: LOCAL DEVELOPMENT ONLY: issuer %s, client %s, redirect URIs %s, users %s (password in %s)\n",
		cfg.Issuer, cfg.ClientID, strings.Join(redirects, " "), strings.Join(names, " "), *passwordFile)
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// secretFrom reads a secret from path, or writes a new random one there
// (mode 0600) when the file is missing or empty.
func secretFrom(path, flagName string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%s: %w", flagName, err)
	}
	if s := strings.TrimSpace(string(b)); s != "" {
		return s, nil
	}
	raw := make([]byte, 18)
	_, _ = rand.Read(raw) // never fails (crypto/rand)
	s := base64.RawURLEncoding.EncodeToString(raw)
	if err := os.WriteFile(path, []byte(s+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("%s: %w", flagName, err)
	}
	return s, nil
}
