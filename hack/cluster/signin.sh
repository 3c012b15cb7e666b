#!/usr/bin/env bash
# Sign-in to the dashboard on the local cluster (hack/cluster/up.sh), for
# make run: builds and starts the development OpenID Connect provider
# (hack/devoidc, FOR LOCAL DEVELOPMENT ONLY) in the background on the
# host's 127.0.0.1:5556, unless it already answers; makes the Secrets
# hack/cluster/values-signin.yaml names (the client's secret, the session
# key); and lets the development user read CwacScans in cwac-system (a
# Role and a RoleBinding to oidc:dev@example.org). Safe to run again.
# The provider's pid is bin/cluster/run/devoidc.pid (down.sh stops it),
# its log bin/cluster/logs/devoidc.log, its secret files (mode 0600) are
# under bin/cluster/devoidc/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="${CLUSTER_DIR:-$ROOT/bin/cluster}"
export KUBECONFIG="$STATE/admin.kubeconfig"
K="$ROOT/bin/k8s/1.37.1-linux-amd64/kubectl"
DIR="$STATE/devoidc"
PORT=5556
ISSUER="http://127.0.0.1:$PORT"
USER_EMAIL=dev@example.org
NS=cwac-system
log() { echo "cluster: $*" >&2; }
answers() { curl -fsS --max-time 2 "$ISSUER/.well-known/openid-configuration" >/dev/null 2>&1; }

mkdir -p "$DIR" "$STATE/run" "$STATE/logs"
chmod 700 "$DIR"
pidf="$STATE/run/devoidc.pid"
if [[ -f $pidf ]] && kill -0 "$(cat "$pidf")" 2>/dev/null && answers; then
  log "the development sign-in provider already answers at $ISSUER"
else
  answers && { log "something else answers at $ISSUER: stop it, or it is not ours to replace"; exit 1; }
  log "building and starting the development sign-in provider at $ISSUER (local development only)"
  # The tools under hack/ are their own module (hack/go.mod): built from there.
  go -C "$ROOT/hack" build -o "$ROOT/bin/devoidc" ./devoidc
  setsid nohup "$ROOT/bin/devoidc" --port "$PORT" --client-id cwac-dashboard \
    --client-secret-file "$DIR/client-secret" --password-file "$DIR/password" \
    --redirect-uri http://127.0.0.1:8090/oauth2/callback --user "$USER_EMAIL:cwac-viewers" \
    --access-token-audience http://127.0.0.1:8090/mcp \
    >"$STATE/logs/devoidc.log" 2>&1 </dev/null &
  echo $! >"$pidf"
  for _ in $(seq 1 50); do answers && break; sleep 0.2; done
  answers || { log "the provider did not start: $(tail -3 "$STATE/logs/devoidc.log")"; exit 1; }
fi

# The session key: made once, so sessions outlive a second run.
[[ -s "$DIR/session-key" ]] || (umask 077 && head -c 48 /dev/urandom | base64 -w0 >"$DIR/session-key")
$K get namespace "$NS" >/dev/null 2>&1 || $K create namespace "$NS" >/dev/null
$K -n "$NS" create secret generic cwac-dashboard-oidc --from-file=client-secret="$DIR/client-secret" \
  --dry-run=client -o yaml | $K apply -f - >/dev/null
$K -n "$NS" create secret generic cwac-dashboard-session --from-file=session-key="$DIR/session-key" \
  --dry-run=client -o yaml | $K apply -f - >/dev/null
$K -n "$NS" apply -f - >/dev/null <<YAML
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cwac-dashboard-dev-reader}
rules:
- {apiGroups: [cwac.a11y.dev], resources: [cwacscans], verbs: [get, list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: cwac-dashboard-dev-reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cwac-dashboard-dev-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: "oidc:$USER_EMAIL"}
YAML
log "sign in to the dashboard as $USER_EMAIL (password in $DIR/password)"
