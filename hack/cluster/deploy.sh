#!/usr/bin/env bash
# Deploys the product onto the local cluster (hack/cluster/up.sh): builds the
# operator image and the stand-in CWAC images without an engine, imports them
# into the cluster's containerd, installs the Helm chart with
# hack/cluster/values-local.yaml, and starts the test site as a pod. Prints
# the test site's URL. Extra arguments go to helm.
#
# The stand-in image is laid out as CWAC's own Dockerfile builds CWAC's, with
# no config/, so the operator is given CWAC's defaults as a user gives them:
# --set-file cwac.defaultConfig=<file>, here the stand-in's own
# test/standin-cwac/config/config_default.json (CWAC_DEFAULT_CONFIG=<file>
# gives another; CWAC_DEFAULT_CONFIG= gives none).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="${CLUSTER_DIR:-$ROOT/bin/cluster}"
export KUBECONFIG="$STATE/admin.kubeconfig"
K="$ROOT/bin/k8s/1.37.1-linux-amd64/kubectl"
SOCK="$STATE/run/containerd.sock"
HELM="$("$ROOT/hack/tools.sh" helm)"
log() { echo "cluster: $*" >&2; }

log "building and importing images (no container engine)"
make -C "$ROOT" --no-print-directory image-tar IMG=cwac-operator:dev >/dev/null
"$ROOT/hack/cluster/standin-image.sh" >/dev/null
for img in cwac-operator cwac-standin cwac-standin-config; do
  ctr --address "$SOCK" -n k8s.io images import "$ROOT/bin/images/$img.tar" >/dev/null
done

log "installing the chart"
DEFAULTS="${CWAC_DEFAULT_CONFIG-$ROOT/test/standin-cwac/config/config_default.json}"
"$HELM" upgrade --install cwac "$ROOT/charts/cwac-operator" -n cwac-system --create-namespace \
  -f "$ROOT/hack/cluster/values-local.yaml" --set image.repository=cwac-operator --set image.tag=dev \
  ${DEFAULTS:+--set-file "cwac.defaultConfig=$DEFAULTS"} --wait --timeout 3m "$@" >&2
# A new image under the same tag: make the running pods pick it up.
for d in cwac-cwac-operator cwac-cwac-operator-mcp; do
  $K -n cwac-system rollout restart deploy/$d >/dev/null
done
for d in cwac-cwac-operator cwac-cwac-operator-mcp; do
  $K -n cwac-system rollout status deploy/$d --timeout 2m >&2
done

log "starting the test site pod"
$K -n cwac-system get pod a11y-site >/dev/null 2>&1 || $K apply -n cwac-system -f - >/dev/null <<'POD'
apiVersion: v1
kind: Pod
metadata: {name: a11y-site, labels: {app: a11y-site}}
spec:
  automountServiceAccountToken: false
  securityContext: {runAsNonRoot: true, runAsUser: 1000, seccompProfile: {type: RuntimeDefault}}
  containers:
  - name: site
    image: cwac-standin:dev
    imagePullPolicy: IfNotPresent
    command: ["/usr/bin/python3", "-m", "http.server", "8765", "--directory", "/site", "--bind", "0.0.0.0"]
    securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
    readinessProbe: {tcpSocket: {port: 8765}, periodSeconds: 1}
POD
$K -n cwac-system wait --for=condition=Ready pod/a11y-site --timeout=60s >/dev/null
echo "http://$($K -n cwac-system get pod a11y-site -o jsonpath='{.status.podIP}'):8765/"
