#!/usr/bin/env bash
# The README's run command on a machine with no cluster (as root): the local
# cluster, the product installed with Helm, the test site, and a sample scan
# run to Complete. Uses the stand-in scanner (our test scanner, not CWAC).
# The dashboard signs people in with the development OpenID Connect provider
# hack/cluster/signin.sh starts on the host (for local development only).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export KUBECONFIG="$("$ROOT/hack/cluster/up.sh")"
"$ROOT/hack/cluster/signin.sh"
SITE="$("$ROOT/hack/cluster/deploy.sh" -f "$ROOT/hack/cluster/values-signin.yaml")"
K="$ROOT/bin/k8s/1.37.1-linux-amd64/kubectl"
$K -n cwac-system delete cwacscan sample-scan --ignore-not-found >/dev/null
$K -n cwac-system apply -f - >/dev/null <<YAML
apiVersion: cwac.a11y.dev/v1alpha1
kind: CwacScan
metadata: {name: sample-scan}
spec:
  sites: [{url: "$SITE", organisation: "CWAC Test Org", sector: "Test Sector"}]
  plugins: {axe_core_audit: true, reflow_audit: true, focus_indicator_audit: true, language_audit: false}
  configOverrides: {only_allow_https: false, audit_plugins: {focus_indicator_audit: {root_element_css_selector: body}}}
YAML
echo "run: waiting for sample-scan to finish" >&2
for _ in $(seq 1 120); do
  phase="$($K -n cwac-system get cwacscan sample-scan -o jsonpath='{.status.phase}')"
  [[ "$phase" == Complete || "$phase" == Failed ]] && break; sleep 1
done
$K -n cwac-system get cwacscans
cat <<MSG

The product runs on a local single-node cluster (real kubelet and containerd).
  export KUBECONFIG=$KUBECONFIG
  alias kubectl=$K
  kubectl get cwacscans -n cwac-system -w
  kubectl get cwacscan sample-scan -n cwac-system -o yaml
Results are on the host under $ROOT/bin/cluster/results/.

MCP (its own pod, deploy/cwac-cwac-operator-mcp, with its own service account;
streamable HTTP on 127.0.0.1:8090/mcp; callers present Kubernetes tokens):
  kubectl -n cwac-system create serviceaccount mcp-user
  kubectl -n cwac-system create role cwac-user --verb=create,get,list,patch --resource=cwacscans.cwac.a11y.dev
  kubectl -n cwac-system create rolebinding mcp-user --role=cwac-user --serviceaccount=cwac-system:mcp-user
  TOKEN=\$(kubectl -n cwac-system create token mcp-user)
  npx @modelcontextprotocol/inspector@0.17.2 --cli http://127.0.0.1:8090/mcp --transport http --header "Authorization: Bearer \$TOKEN" --method tools/list
  curl -H "Authorization: Bearer \$TOKEN" http://127.0.0.1:8090/tools    # REST

This demo scans with the STAND-IN scanner (test/standin-cwac: writes CWAC's
output format from a recorded real run; it is not CWAC). For real scans, build
an image from CWAC's own Dockerfile, import it (ctr --address
$ROOT/bin/cluster/run/containerd.sock -n k8s.io images import cwac.tar) and
give the operator CWAC's defaults from your CWAC checkout (CWAC's image has
none):
  $ROOT/bin/helm upgrade cwac $ROOT/charts/cwac-operator -n cwac-system --reset-then-reuse-values \\
    --set cwac.image=<that image> --set-file cwac.defaultConfig=<cwac>/config/config_default.json
Stop everything with hack/cluster/down.sh (add --purge to delete its data).
MSG
