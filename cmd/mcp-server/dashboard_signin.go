package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/dashboard"
	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
	"github.com/a11y-dev/cwac-operator/internal/websession"
)

// signInFlags are the dashboard's OpenID Connect sign-in and public
// mode (docs/dashboard.md#signing-in).
type signInFlags struct {
	issuer, clientID, clientSecretFile, redirectURL, scopes, caFile string
	usernameClaim, usernamePrefix, groupsClaim, groupsPrefix        string
	sessionKeyFile                                                  string
	sessionTTL                                                      time.Duration
	publicNamespaces                                                string
}

func (f *signInFlags) bind(flags *flag.FlagSet) {
	flags.StringVar(&f.issuer, "dashboard-oidc-issuer", "", "sign browsers in to the dashboard with this OpenID Connect provider (its issuer URL); "+
		"needs --auth=kubernetes, --dashboard-oidc-client-id, --dashboard-oidc-redirect-url and --dashboard-session-key-file")
	flags.StringVar(&f.clientID, "dashboard-oidc-client-id", "", "the dashboard's client ID at the provider")
	flags.StringVar(&f.clientSecretFile, "dashboard-oidc-client-secret-file", "",
		"file holding the client's secret (mount it from a Secret); none for a public client (PKCE alone)")
	flags.StringVar(&f.redirectURL, "dashboard-oidc-redirect-url", "",
		"the callback URL registered at the provider, e.g. https://cwac.example.org/oauth2/callback (https, or http on a loopback address)")
	flags.StringVar(&f.scopes, "dashboard-oidc-scopes", "openid,profile,email", "comma-separated scopes asked for (add groups where the provider needs it)")
	flags.StringVar(&f.caFile, "dashboard-oidc-ca-file", "", "PEM certificates to trust for the provider besides the system's")
	flags.StringVar(&f.usernameClaim, "dashboard-oidc-username-claim", websession.DefaultUsernameClaim,
		"the ID token claim that is the Kubernetes username, as kube-apiserver's --oidc-username-claim")
	flags.StringVar(&f.usernamePrefix, "dashboard-oidc-username-prefix", "",
		"put before usernames, as kube-apiserver's --oidc-username-prefix (empty: the issuer URL and # unless the claim is email; - for none)")
	flags.StringVar(&f.groupsClaim, "dashboard-oidc-groups-claim", "", "the claim holding the user's groups, as kube-apiserver's --oidc-groups-claim")
	flags.StringVar(&f.groupsPrefix, "dashboard-oidc-groups-prefix", "", "put before groups, as kube-apiserver's --oidc-groups-prefix")
	flags.StringVar(&f.sessionKeyFile, "dashboard-session-key-file", "",
		"file of session keys, one per line, at least 32 bytes each (mount it from a Secret; the first seals, the others still open older sessions)")
	flags.DurationVar(&f.sessionTTL, "dashboard-session-ttl", websession.DefaultSessionTTL, "how long a dashboard sign-in lasts")
	flags.StringVar(&f.publicNamespaces, "dashboard-public-namespaces", "",
		"comma-separated namespaces whose leaderboard and exports anyone may read without signing in (default none)")
}

// oidcFlagsSet names the sign-in flags given beside the issuer.
func (f *signInFlags) oidcFlagsSet() []string {
	var set []string
	for name, v := range map[string]string{
		"--dashboard-oidc-client-id": f.clientID, "--dashboard-oidc-client-secret-file": f.clientSecretFile,
		"--dashboard-oidc-redirect-url": f.redirectURL, "--dashboard-oidc-ca-file": f.caFile,
		"--dashboard-oidc-username-prefix": f.usernamePrefix, "--dashboard-oidc-groups-claim": f.groupsClaim,
		"--dashboard-oidc-groups-prefix": f.groupsPrefix, "--dashboard-session-key-file": f.sessionKeyFile,
	} {
		if v != "" {
			set = append(set, name)
		}
	}
	slices.Sort(set)
	return set
}

// authNone is --auth=none.
const authNone = "none"

// authModeOf names the MCP server's --auth from its authenticator.
func authModeOf(a mcpserver.Authenticator) string {
	switch a.(type) {
	case *mcpserver.KubernetesAuth, *mcpserver.OIDCTokenAuth: // the latter: Kubernetes tokens and the provider's
		return mcpserver.MethodKubernetes
	case mcpserver.StaticTokenAuth:
		return "token"
	case mcpserver.AnonymousAuth:
		return authNone
	}
	return "unknown"
}

// check refuses flags that cannot work together, naming them.
func (f *signInFlags) check(enabled bool, authMode string) error {
	public := urlpolicy.SplitList(f.publicNamespaces)
	if f.issuer == "" {
		if set := f.oidcFlagsSet(); len(set) > 0 {
			return fmt.Errorf("%s given without --dashboard-oidc-issuer: sign-in is off", strings.Join(set, ", "))
		}
	}
	switch {
	case !enabled && (f.issuer != "" || len(public) > 0):
		return errors.New("--dashboard-oidc-issuer and --dashboard-public-namespaces need the dashboard (--dashboard=false given)")
	case f.issuer != "" && authMode != mcpserver.MethodKubernetes:
		return fmt.Errorf("--dashboard-oidc-issuer needs --auth=kubernetes (not %s): what a signed-in user reads is decided by "+
			"SubjectAccessReviews, as for tokens", authMode)
	case len(public) > 0 && authMode == authNone:
		return errors.New("--dashboard-public-namespaces with --auth=none: every namespace is already readable without signing in")
	case f.issuer != "" && f.clientID == "":
		return errors.New("--dashboard-oidc-issuer needs --dashboard-oidc-client-id")
	case f.issuer != "" && f.redirectURL == "":
		return errors.New("--dashboard-oidc-issuer needs --dashboard-oidc-redirect-url (the callback registered at the provider)")
	case f.issuer != "" && f.sessionKeyFile == "":
		return errors.New("--dashboard-oidc-issuer needs --dashboard-session-key-file (keys that seal the session cookie; mount them from a Secret)")
	}
	return nil
}

// build makes the sign-in from the flags (nil when no issuer is given),
// reading the secret and key files.
func (f *signInFlags) build() (*dashboard.SignIn, error) {
	if f.issuer == "" {
		return nil, nil //nolint:nilnil // sign-in off is not an error
	}
	keyData, err := os.ReadFile(f.sessionKeyFile)
	if err != nil {
		return nil, fmt.Errorf("--dashboard-session-key-file: %w", err)
	}
	keys, err := websession.ParseKeyFile(keyData)
	if err != nil {
		return nil, fmt.Errorf("--dashboard-session-key-file %s: %w", f.sessionKeyFile, err)
	}
	sealer, err := websession.NewSealer(keys...)
	if err != nil {
		return nil, fmt.Errorf("--dashboard-session-key-file %s: %w", f.sessionKeyFile, err)
	}
	var secret string
	if f.clientSecretFile != "" {
		if secret, err = readSecretFile("dashboard-oidc-client-secret-file", f.clientSecretFile); err != nil {
			return nil, err
		}
	}
	client, err := providerClient(f.caFile)
	if err != nil {
		return nil, err
	}
	s, err := dashboard.NewSignIn(dashboard.SignInOptions{
		Issuer: f.issuer, ClientID: f.clientID, ClientSecret: secret, RedirectURL: f.redirectURL,
		Scopes: urlpolicy.SplitList(f.scopes), Sealer: sealer, SessionTTL: f.sessionTTL, HTTPClient: client,
		Claims: websession.ClaimMapping{UsernameClaim: f.usernameClaim, UsernamePrefix: f.usernamePrefix,
			GroupsClaim: f.groupsClaim, GroupsPrefix: f.groupsPrefix},
	})
	if err != nil {
		return nil, fmt.Errorf("dashboard sign-in: %w", err)
	}
	return s, nil
}

// providerClient reaches the provider, trusting caFile's certificates
// besides the system's.
func providerClient(caFile string) (*http.Client, error) {
	c := &http.Client{Timeout: 30 * time.Second}
	if caFile == "" {
		return c, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("--dashboard-oidc-ca-file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--dashboard-oidc-ca-file %s holds no PEM certificate", caFile)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	c.Transport = t
	return c, nil
}

// discoverAtStart reaches the provider once at start, so a wrong issuer
// shows in the log at once; sign-ins retry it.
func discoverAtStart(s *dashboard.SignIn, deps dashboardDeps) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Discover(ctx); err != nil {
		deps.log.Warn("dashboard sign-in: the provider is not reachable yet; sign-ins will retry", "err", err)
	}
}
