#!/usr/bin/env bash
# The README's run command. Runs the operator against the cluster the current
# kubeconfig reaches; when it reaches none, starts a local development control
# plane (real kube-apiserver + etcd, no kubelet) and runs against that.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

ASSETS="$(./hack/envtest-assets.sh)"
KUBECTL="$ASSETS/kubectl"
make --no-print-directory build >/dev/null

# dashboard_url prints where the web dashboard (the MCP server's read side,
# docs/dashboard.md) answers, after asking it: the local cluster's MCP pod
# listens on the node's 127.0.0.1:8090 (hack/cluster/values-local.yaml), so
# no port-forward is needed, and a browser signs in with the development
# provider hack/cluster/signin.sh started (hack/cluster/values-signin.yaml).
dashboard_url() {
  local url="http://127.0.0.1:8090/" code password
  code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url" || true)"
  password="$(cat "$ROOT/bin/cluster/devoidc/password" 2>/dev/null || true)"
  echo
  case "$code" in
    303)
      cat <<MSG
Dashboard: $url
  Open it in a browser and sign in as dev@example.org / $password
  (development credentials of the local sign-in provider at http://127.0.0.1:5556,
  for this machine only; hack/cluster/down.sh stops it). That user may read the
  CwacScans of cwac-system (Role and RoleBinding cwac-dashboard-dev-reader).
  Scripts read it with a token instead, e.g. of the service account "mcp-user" made as
  above (MCP):
    TOKEN=\$(kubectl -n cwac-system create token mcp-user)
    curl -H "Authorization: Bearer \$TOKEN" $url
MSG
      ;;
    401)
      cat <<MSG
Dashboard: $url
  It answers 401 (the MCP server's --auth=kubernetes, without browser sign-in):
  read it with a token of a user who may get CwacScans in cwac-system, e.g. the
  service account "me" made as above (MCP):
    TOKEN=\$(kubectl -n cwac-system create token mcp-user)
    curl -H "Authorization: Bearer \$TOKEN" $url
MSG
      ;;
    200)
      echo "Dashboard: $url (open it in a browser)" ;;
    *)
      echo "Dashboard: $url did not answer (HTTP '${code:-none}'): check kubectl -n cwac-system get pods and docs/dashboard.md" ;;
  esac
}

DEV_PID=""
cleanup() { [[ -n "$DEV_PID" ]] && kill "$DEV_PID" 2>/dev/null && wait "$DEV_PID" 2>/dev/null; true; }
trap cleanup EXIT INT TERM

if [[ "${CWAC_DEV_CLUSTER:-}" != "1" && -z "${KUBECONFIG:-}" && ! -f "$HOME/.kube/config" && $(id -u) -eq 0 ]]; then
  # No cluster configured, and root: the whole product on a local real cluster.
  "$ROOT/hack/cluster/demo.sh"
  dashboard_url
  exit 0
elif [[ "${CWAC_DEV_CLUSTER:-}" != "1" ]] && "$KUBECTL" version --request-timeout=3s >/dev/null 2>&1; then
  echo "run: using the cluster of the current kubeconfig ($("$KUBECTL" config current-context 2>/dev/null || echo '?'))"
  echo "run: only the operator runs here; the dashboard is the MCP server's, where the chart installed it (docs/dashboard.md#opening-it)"
  "$KUBECTL" apply --server-side -f config/crd/bases
else
  echo "run: no cluster reachable; starting a local development control plane (API server + etcd, no kubelet)"
  export KUBECONFIG="$ROOT/bin/dev/kubeconfig"
  rm -f "$KUBECONFIG"
  # The tools under hack/ are their own module (hack/go.mod): built from there.
  go -C hack build -o "$ROOT/bin/devcluster" ./devcluster
  ./bin/devcluster --assets "$ASSETS" --write-kubeconfig "$KUBECONFIG" &
  DEV_PID=$!
  for _ in $(seq 1 120); do [[ -s "$KUBECONFIG" ]] && break; sleep 0.5; done
  [[ -s "$KUBECONFIG" ]] || { echo "run: the development control plane did not start" >&2; exit 1; }
  "$KUBECTL" create namespace cwac-demo --dry-run=client -o yaml | "$KUBECTL" apply -f - >/dev/null
  cat <<MSG

  Local control plane is up. In another terminal:
    export KUBECONFIG=$KUBECONFIG
    alias kubectl=$KUBECTL
    kubectl apply -n cwac-demo -f config/samples/
    kubectl get cwacscans -n cwac-demo -w
    kubectl get configmaps,jobs -n cwac-demo
  This control plane has no kubelet: the scan's ConfigMap and Job appear and the
  scan stays Pending (a real cluster runs the pod). Nothing is fetched here, so
  the scan-target policy checks URLs without resolving names or following
  redirects (this machine may have no DNS). Ctrl-C stops everything.

MSG
fi

exec_manager() {
  ./bin/manager --metrics-bind-address=0 --health-probe-bind-address=0 "$@"
}
if [[ -n "$DEV_PID" ]]; then
  exec_manager --url-resolve=false --url-check-redirects=false "$@"
else
  exec_manager "$@"
fi
