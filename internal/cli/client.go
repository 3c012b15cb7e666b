package cli

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(cwacv1alpha1.AddToScheme(s))
	return s
}()

// session is one command's connection to the API server with the user's
// kubeconfig.
type session struct {
	config    *rest.Config
	client    client.WithWatch
	namespace string
	// namespaceSet is true when -n (--namespace) named the namespace, not
	// the kubeconfig's context.
	namespaceSet bool
	// token is the bearer token the user's transport sent last, seen on the
	// wire: the only way to learn a token an exec or auth-provider plugin
	// supplies.
	token *capturedToken
}

type capturedToken struct {
	mu    sync.Mutex
	value string
}

func (c *capturedToken) get() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.value
}

// newSession connects with kubectl's flags (--kubeconfig, --context, -n…).
func (o *Options) newSession() (*session, error) {
	cfg, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("reading kubeconfig: %w", err)
	}
	ns, set, err := o.ConfigFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, fmt.Errorf("reading kubeconfig's namespace: %w", err)
	}
	cfg = rest.CopyConfig(cfg)
	tok := &capturedToken{}
	// Wrappers added here run innermost, after the bearer, exec or
	// auth-provider round tripper has set Authorization.
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && v != "" {
				tok.mu.Lock()
				tok.value = v
				tok.mu.Unlock()
			}
			return rt.RoundTrip(r)
		})
	})
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("connecting to the API server %s: %w", cfg.Host, err)
	}
	return &session{config: cfg, client: c, namespace: ns, namespaceSet: set, token: tok}, nil
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// errNoToken explains why result files need a bearer token.
var errNoToken = errors.New("result files are read through the MCP server, which needs a bearer token to check your permissions, " +
	"and your kubeconfig authenticates without one (a client certificate or a password); " +
	"pass one, e.g. --token \"$(kubectl create token <service account> -n <namespace>)\"")

// bearerToken is the token the MCP server is to review: the kubeconfig's
// own, its token file's, or the one an exec or auth-provider plugin sent
// on an earlier request of this session.
func (s *session) bearerToken() (string, error) {
	if s.config.Impersonate.UserName != "" || len(s.config.Impersonate.Groups) > 0 || s.config.Impersonate.UID != "" {
		return "", errors.New("result files cannot be read while impersonating (--as, --as-group, --as-uid): " +
			"the MCP server checks the permissions of the token's owner, not of the impersonated user")
	}
	// The file first: it may have been rotated since the kubeconfig was
	// loaded (which also copies it, untrimmed, into BearerToken).
	if s.config.BearerTokenFile != "" {
		data, err := os.ReadFile(s.config.BearerTokenFile)
		if err != nil {
			return "", fmt.Errorf("reading the kubeconfig's token file: %w", err)
		}
		if t := strings.TrimSpace(string(data)); t != "" {
			return t, nil
		}
	}
	if t := strings.TrimSpace(s.config.BearerToken); t != "" {
		return t, nil
	}
	if t := s.token.get(); t != "" {
		return t, nil
	}
	return "", errNoToken
}

// describeAPIError says in words what the API server refused.
func describeAPIError(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case apierrors.IsForbidden(err):
		return fmt.Errorf("the API server refused to %s (403 Forbidden: your RBAC does not allow it): %s", what, apiMessage(err))
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("the API server refused to %s (401 Unauthorized: your credentials were not accepted; "+
			"check --token, --context or the kubeconfig): %s", what, apiMessage(err))
	case apierrors.IsNotFound(err):
		return fmt.Errorf("cannot %s: %s", what, apiMessage(err))
	case apierrors.IsInvalid(err), apierrors.IsAlreadyExists(err), apierrors.IsConflict(err):
		return fmt.Errorf("the API server refused to %s: %s", what, apiMessage(err))
	default:
		return fmt.Errorf("cannot %s: %w", what, err)
	}
}

func apiMessage(err error) string {
	var se apierrors.APIStatus
	if errors.As(err, &se) && se.Status().Message != "" {
		return se.Status().Message
	}
	return err.Error()
}
