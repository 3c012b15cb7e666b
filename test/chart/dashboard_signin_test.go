//go:build integration

package chart

import (
	"os/exec"
	"strings"
	"testing"
)

// signInSets enable the dashboard's sign-in, its public view and the
// Ingress.
var signInSets = []string{
	"mcp.webDashboard.oidc.issuer=https://idp.example.org/realms/gov",
	"mcp.webDashboard.oidc.clientID=cwac-dashboard",
	"mcp.webDashboard.oidc.redirectURL=https://cwac.example.org/oauth2/callback",
	"mcp.webDashboard.oidc.clientSecret.name=cwac-oidc",
	"mcp.webDashboard.oidc.sessionKey.name=cwac-dashboard-session",
	"mcp.webDashboard.oidc.usernameClaim=email",
	"mcp.webDashboard.oidc.groupsClaim=groups",
	"mcp.webDashboard.oidc.groupsPrefix=oidc:",
	"mcp.webDashboard.public=true",
	"mcp.webDashboard.ingress.enabled=true",
	"mcp.webDashboard.ingress.host=cwac.example.org",
	"mcp.webDashboard.ingress.tlsSecretName=cwac-tls",
}

// TestChartDashboardSignIn: the sign-in values become the MCP server's
// flags, its client secret and session keys are mounted read-only from
// their Secrets (never in an argument or the environment), and the
// Ingress points at the MCP Service; the API server accepts every object.
func TestChartDashboardSignIn(t *testing.T) {
	const ns = "cwac-signin"
	objs := render(t, ns, signInSets...)
	got := args(t, objs, "mcp-server")
	for _, want := range []string{
		"--dashboard-oidc-issuer=https://idp.example.org/realms/gov",
		"--dashboard-oidc-client-id=cwac-dashboard",
		"--dashboard-oidc-redirect-url=https://cwac.example.org/oauth2/callback",
		"--dashboard-oidc-scopes=openid,profile,email",
		"--dashboard-oidc-username-claim=email",
		"--dashboard-oidc-groups-claim=groups",
		"--dashboard-oidc-groups-prefix=oidc:",
		"--dashboard-oidc-client-secret-file=/var/run/cwac-dashboard/client/secret",
		"--dashboard-session-key-file=/var/run/cwac-dashboard/session/keys",
		"--dashboard-session-ttl=8h",
		"--dashboard-public-namespaces=" + ns,
		"--auth=kubernetes",
	} {
		if !hasArg(got, want) {
			t.Errorf("mcp-server lacks %s in %v", want, got)
		}
	}
	for _, a := range got {
		if strings.HasPrefix(a, "--dashboard-oidc-username-prefix") || strings.HasPrefix(a, "--oauth-resource-url") {
			t.Errorf("an unset value is passed: %s", a)
		}
	}
	// MCP clients signing in with the same provider.
	oauth := args(t, render(t, ns, append([]string{"mcp.auth.oauthResourceURL=https://cwac.example.org/mcp"}, signInSets...)...), "mcp-server")
	if !hasArg(oauth, "--oauth-resource-url=https://cwac.example.org/mcp") || !hasArg(oauth, "--dashboard-oidc-issuer=https://idp.example.org/realms/gov") {
		t.Errorf("with mcp.auth.oauthResourceURL: %v", oauth)
	}
	_, dep := container(t, objs, "mcp-server")
	_, pod := podSpec(t, dep)
	secrets := map[string]string{}
	for _, v := range pod.Volumes {
		if v.Secret != nil {
			secrets[v.Name] = v.Secret.SecretName
		}
	}
	if secrets["dashboard-session"] != "cwac-dashboard-session" || secrets["dashboard-client"] != "cwac-oidc" {
		t.Errorf("secret volumes %v", secrets)
	}
	for _, c := range pod.Containers {
		for _, m := range c.VolumeMounts {
			if strings.HasPrefix(m.Name, "dashboard-") && !m.ReadOnly {
				t.Errorf("%s mounted writable", m.Name)
			}
		}
	}
	ing := find(objs, "Ingress", "-mcp")
	if ing == nil {
		t.Fatal("no Ingress rendered")
	}
	svc := find(objs, "Service", "-mcp")
	backend := unstructuredString(ing.Object, "spec", "rules", "0", "http", "paths", "0", "backend", "service", "name")
	if svc == nil || backend != svc.GetName() {
		t.Errorf("the Ingress goes to %q, not the MCP Service", backend)
	}
	applyDryRun(t, objs)

	// Off by default: no sign-in flag, no Ingress.
	def := render(t, ns)
	for _, a := range args(t, def, "mcp-server") {
		if strings.HasPrefix(a, "--dashboard") {
			t.Errorf("default values pass %s", a)
		}
	}
	if find(def, "Ingress", "-mcp") != nil {
		t.Error("an Ingress by default")
	}
	if a := args(t, render(t, ns, "mcp.webDashboard.enabled=false"), "mcp-server"); !hasArg(a, "--dashboard=false") {
		t.Errorf("dashboard off: %v", a)
	}
}

// TestChartRefusesInconsistentSignIn: sign-in values that cannot work
// are refused at install, naming what is missing.
func TestChartRefusesInconsistentSignIn(t *testing.T) {
	issuer := "mcp.webDashboard.oidc.issuer=https://idp.example.org"
	full := []string{issuer, "mcp.webDashboard.oidc.clientID=c", "mcp.webDashboard.oidc.redirectURL=https://cwac.example.org/oauth2/callback",
		"mcp.webDashboard.oidc.sessionKey.name=keys"}
	for _, tt := range []struct {
		sets []string
		want string
	}{
		{append([]string{"mcp.auth.mode=token", "mcp.auth.tokenSecret.name=t"}, full...), "needs mcp.auth.mode=kubernetes (not token)"},
		{append([]string{"mcp.auth.mode=none"}, full...), "needs mcp.auth.mode=kubernetes (not none)"},
		{append([]string{"mcp.webDashboard.enabled=false"}, full...), "need mcp.webDashboard.enabled=true"},
		{[]string{"mcp.auth.mode=none", "mcp.webDashboard.public=true"}, "already readable"},
		{full[:3], "mcp.webDashboard.oidc.sessionKey.name is required"},
		{[]string{issuer, "mcp.webDashboard.oidc.clientID=c", "mcp.webDashboard.oidc.sessionKey.name=k"}, "redirectURL is required"},
		{[]string{issuer, "mcp.webDashboard.oidc.redirectURL=https://x.example/cb", "mcp.webDashboard.oidc.sessionKey.name=k"}, "clientID is required"},
		{[]string{"mcp.webDashboard.ingress.enabled=true"}, "ingress.host is required"},
		{[]string{"mcp.webDashboard.oidc.issuer=http://idp.example.org"}, "values don't meet the specifications of the schema"},
		{append([]string{"mcp.webDashboard.oidc.redirectURL=http://cwac.example.org/cb"}, full[0], full[1], full[3]), "values don't meet the specifications"},
		{[]string{"mcp.webDashboard.oidc.sessionTTL=forever"}, "values don't meet the specifications"},
		{[]string{"mcp.webDashboard.other=1"}, "values don't meet the specifications"},
		{[]string{"mcp.auth.oauthResourceURL=https://cwac.example.org/mcp"}, "oauthResourceURL needs mcp.webDashboard.oidc.issuer"},
		{append([]string{"mcp.auth.oauthResourceURL=http://cwac.example.org/mcp"}, full...), "values don't meet the specifications"},
		{append([]string{"mcp.auth.oauthResourceURL=https://cwac.example.org/mcp?x=1"}, full...), "values don't meet the specifications"},
	} {
		a := append([]string{"template", "cwac", "../../charts/cwac-operator", "--kube-version", "1.37.1"}, setArgs(tt.sets)...)
		out, err := exec.Command(helmBin(t), a...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), tt.want) {
			t.Errorf("%v: err %v, want %q\n%s", tt.sets, err, tt.want, out)
		}
	}
}

// unstructuredString reads a string along a path of map keys and list
// indexes ("0").
func unstructuredString(obj map[string]any, path ...string) string {
	var cur any = obj
	for _, p := range path {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[p]
		case []any:
			if p != "0" || len(c) == 0 {
				return ""
			}
			cur = c[0]
		default:
			return ""
		}
	}
	s, _ := cur.(string)
	return s
}
