#!/usr/bin/env bash
# Installs the operator on the local cluster (hack/cluster/up.sh, with the
# test site of deploy.sh running) from a registry alone, then upgrades it
# with `helm upgrade` from the previous release to this checkout's, and
# checks that scans, results, schedules, decisions and the issue history are
# kept (test/upgrade). The scans' image (the stand-in scanner) is pulled
# from that registry too. Both releases are made with make release, for
# linux/amd64, into a CNCF distribution registry started here on a free
# loopback port, signed with a key pair made for the run; the chart is
# verified with it before it is installed, as a user would.
#
# The previous release is PREVIOUS_RELEASE: the commit of the last version
# published. No version has been published yet, so it is the first commit
# make release could publish; set it to the last release's tag once there
# is one (docs/releasing.md, "Upgrades").
#
# It replaces the chart release "cwac" in cwac-system (helm uninstall; the
# CRDs and volumes are kept, as the chart asks) with the released one, and
# leaves that installed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="${CLUSTER_DIR:-$ROOT/bin/cluster}"
PREVIOUS_RELEASE="${PREVIOUS_RELEASE:-0e2968b}"
export KUBECONFIG="$STATE/admin.kubeconfig"
K="$ROOT/bin/k8s/1.37.1-linux-amd64/kubectl"
log() { echo "release-upgrade: $*" >&2; }

[[ -f "$STATE/run/kubelet.pid" ]] && kill -0 "$(cat "$STATE/run/kubelet.pid")" 2>/dev/null ||
  { log "the local cluster is not running: hack/cluster/up.sh, then hack/cluster/deploy.sh"; exit 1; }
SITE="http://$($K -n cwac-system get pod a11y-site -o jsonpath='{.status.podIP}'):8765/"
[[ "$SITE" != "http://:8765/" ]] || { log "no test site pod: hack/cluster/deploy.sh starts it"; exit 1; }
HELM="$("$ROOT/hack/tools.sh" helm)"
COSIGN="$("$ROOT/hack/tools.sh" cosign)"
REGISTRY_BIN="$("$ROOT/hack/tools.sh" registry)"
"$ROOT/hack/tools.sh" syft >/dev/null

WORK="$(mktemp -d)"
REGISTRY_PID="" ADDR=""
cleanup() {
  [[ -z "$REGISTRY_PID" ]] || kill "$REGISTRY_PID" 2>/dev/null || true
  rm -rf "$WORK"
  [[ -z "$ADDR" ]] || rm -rf "$STATE/containerd/certs.d/$ADDR"
}
trap cleanup EXIT

PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
ADDR="127.0.0.1:$PORT"
log "starting a registry on $ADDR"
cat > "$WORK/registry.yml" <<YAML
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $WORK/registry
http:
  addr: $ADDR
YAML
"$REGISTRY_BIN" serve "$WORK/registry.yml" > "$WORK/registry.log" 2>&1 &
REGISTRY_PID=$!
for _ in $(seq 100); do curl -fsS "http://$ADDR/v2/" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fsS "http://$ADDR/v2/" >/dev/null || { cat "$WORK/registry.log" >&2; log "the registry did not start"; exit 1; }
# The cluster's containerd pulls from it over plain HTTP.
mkdir -p "$STATE/containerd/certs.d/$ADDR"
cat > "$STATE/containerd/certs.d/$ADDR/hosts.toml" <<TOML
server = "http://$ADDR"
[host."http://$ADDR"]
  capabilities = ["pull", "resolve"]
TOML

(cd "$WORK" && COSIGN_PASSWORD=upgrade-check "$COSIGN" generate-key-pair >/dev/null 2>&1)
REGISTRY="$ADDR/cwac"

# publish COMMIT TAG: make release of COMMIT, tagged TAG, in a clone that
# shares this checkout's tools; prints the release's release.env.
publish() {
  local commit=$1 tag=$2 dir="$WORK/repo-$2"
  git clone -q "$ROOT" "$dir"
  git -C "$dir" checkout -q "$commit"
  # The tagger given here: a CI machine may have no git identity.
  GIT_COMMITTER_NAME="upgrade check" GIT_COMMITTER_EMAIL=upgrade-check@localhost git -C "$dir" tag -a -m "upgrade check" "$tag"
  mkdir -p "$dir/bin"
  for tool in cosign syft helm; do
    ln -s "$(readlink -f "$ROOT/bin/$tool")" "$dir/bin/$(basename "$(readlink -f "$ROOT/bin/$tool")")"
  done
  log "publishing $tag ($(git -C "$dir" rev-parse --short HEAD))"
  PLATFORMS=linux/amd64 REGISTRY="$REGISTRY" COSIGN_KEY="$WORK/cosign.key" COSIGN_PASSWORD=upgrade-check \
    make -C "$dir" --no-print-directory release > "$WORK/release-$tag.log" 2>&1 ||
    { cat "$WORK/release-$tag.log" >&2; log "make release of $tag failed"; exit 1; }
  cat "$dir/bin/release/$tag/release.env"
}
FROM=v0.0.0-upgrade.1 TO=v0.0.0-upgrade.2
if ! git -C "$ROOT" cat-file -e "$PREVIOUS_RELEASE^{commit}" 2>/dev/null; then
  # A shallow clone (a CI's, say) lacks older commits: the upgrade is then
  # from a release of this same source under the older version, which still
  # changes the chart's version and the image's digest (the version is in
  # the binaries). Said here, not hidden.
  [[ "$(git -C "$ROOT" rev-parse --is-shallow-repository)" == true ]] ||
    { log "PREVIOUS_RELEASE $PREVIOUS_RELEASE is not a commit of this repository"; exit 1; }
  log "WARNING: this clone is shallow and lacks the previous release $PREVIOUS_RELEASE: upgrading from this source released as $FROM"
  PREVIOUS_RELEASE=HEAD
fi
from_env="$(publish "$PREVIOUS_RELEASE" "$FROM")"
to_env="$(publish HEAD "$TO")"
value() { sed -n "s/^$2=//p" <<<"$1"; }
for env in "$from_env" "$to_env"; do
  "$COSIGN" verify --key "$WORK/cosign.pub" --insecure-ignore-tlog=true --allow-http-registry "$(value "$env" CHART)" >/dev/null 2>&1 ||
    { log "the chart $(value "$env" CHART) does not verify with the release key"; exit 1; }
done
# The scans' image from the registry too (the stand-in scanner, as the
# other cluster tests scan with): nothing the install runs is imported.
read -r _ STANDIN_DIGEST < <(STANDIN_PUSH="$REGISTRY/cwac-standin:dev" "$ROOT/hack/cluster/standin-image.sh")
[[ "$STANDIN_DIGEST" == sha256:* ]] || { log "pushing the stand-in scanner's image failed"; exit 1; }
# The image each chart pins, as its pods name it: repository:tag@digest.
pinned() { echo "$REGISTRY/cwac-operator:$(value "$1" VERSION)@$(value "$1" IMAGE | sed 's/.*@//')"; }

log "replacing the chart release cwac with the published $FROM"
"$HELM" uninstall cwac -n cwac-system --wait --timeout 3m >/dev/null 2>&1 || true
# The history volume holds the store this checkout's MCP server wrote
# (deploy.sh), at a schema the previous release may not know: it refuses to
# open a newer one, as it should. Its users' stores are its own, so it
# starts from an empty history, as after its own first install.
find "$STATE/history" -mindepth 1 -delete
CWAC_UPGRADE_KUBECONFIG="$KUBECONFIG" CWAC_UPGRADE_KUBECTL="$K" HELM="$HELM" \
  CWAC_UPGRADE_CHART="$(value "$from_env" CHART_REF)" CWAC_UPGRADE_FROM="${FROM#v}" CWAC_UPGRADE_TO="${TO#v}" \
  CWAC_UPGRADE_FROM_IMAGE="$(pinned "$from_env")" CWAC_UPGRADE_TO_IMAGE="$(pinned "$to_env")" \
  CWAC_UPGRADE_SITE="$SITE" CWAC_UPGRADE_RESULTS="$STATE/results" CWAC_UPGRADE_VALUES="$ROOT/hack/cluster/values-local.yaml" \
  CWAC_UPGRADE_CWAC_DEFAULTS="$ROOT/test/standin-cwac/config/config_default.json" \
  CWAC_UPGRADE_CWAC_IMAGE="$REGISTRY/cwac-standin@$STANDIN_DIGEST" \
  go -C "$ROOT" test -tags 'integration upgrade' -count=1 -v -timeout 30m ./test/upgrade 2>&1 |
  grep -E '^(=== RUN|--- |TIMING|PASS|FAIL|ok|panic)|_test.go'
exit "${PIPESTATUS[0]}"
