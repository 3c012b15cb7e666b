#!/usr/bin/env bash
# End-to-end on a real single-node cluster (as root): brings the cluster up
# (timing a cold and a warm start), deploys the product with Helm, runs
# test/cluster, installs and upgrades the product from a registry
# (release-upgrade.sh), and tears the cluster down again (KEEP_CLUSTER=1
# keeps it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="${CLUSTER_DIR:-$ROOT/bin/cluster}"
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2-$1:.1f}')"; }

"$ROOT/hack/envtest-assets.sh" >/dev/null  # builds outside the timings
EXTRA_BINARIES="kubelet kube-controller-manager kube-scheduler" "$ROOT/hack/envtest-assets.sh" >/dev/null
"$ROOT/hack/cluster/down.sh" --purge >/dev/null 2>&1 || true
t0=$(now); "$ROOT/hack/cluster/up.sh" >/dev/null; t1=$(now)
echo "TIMING cluster_bring_up_cold $(secs "$t0" "$t1")s"
"$ROOT/hack/cluster/down.sh" >/dev/null
t0=$(now); KUBECONFIG_PATH="$("$ROOT/hack/cluster/up.sh")"; t1=$(now)
echo "TIMING cluster_bring_up_warm $(secs "$t0" "$t1")s"
trap '[[ "${KEEP_CLUSTER:-}" == 1 ]] || "$ROOT/hack/cluster/down.sh" --purge >/dev/null 2>&1' EXIT

t0=$(now); SITE="$("$ROOT/hack/cluster/deploy.sh")"; t1=$(now)
echo "TIMING deploy_images_and_chart $(secs "$t0" "$t1")s"
CWAC_E2E_KUBECONFIG="$KUBECONFIG_PATH" CWAC_E2E_SITE="$SITE" CWAC_E2E_RESULTS="$STATE/results" CWAC_E2E_KUBELET_ROOT="$STATE/kubelet/root" \
  go test -tags integration -count=1 -v -timeout 20m ./test/cluster 2>&1 | grep -E '^(=== RUN|--- |TIMING|PASS|FAIL|ok|panic)|_test.go'
# Last, as it replaces the chart installed above: the previous release and
# this one published to a registry here, installed and upgraded from it.
t0=$(now); "$ROOT/hack/cluster/release-upgrade.sh"; t1=$(now)
echo "TIMING release_install_and_upgrade $(secs "$t0" "$t1")s"

