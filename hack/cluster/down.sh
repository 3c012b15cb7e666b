#!/usr/bin/env bash
# Tears down the local cluster hack/cluster/up.sh started and leaves the host
# as it was: pods are deleted through Kubernetes (so their networks are
# released), then only the processes up.sh started are stopped, by PID; our
# mounts, bridge, network namespaces and cgroups are removed. With --purge,
# bin/cluster (certificates, etcd data, results) is deleted too.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="${CLUSTER_DIR:-$ROOT/bin/cluster}"
BRIDGE=cwac0
log() { echo "cluster: $*" >&2; }
[[ -d "$STATE/run" ]] || { log "nothing to tear down"; exit 0; }
ASSETS="$ROOT/bin/k8s/1.37.1-linux-amd64"
K="$ASSETS/kubectl --kubeconfig $STATE/admin.kubeconfig --request-timeout=5s"
SOCK="$STATE/run/containerd.sock"
alive() { [[ -f "$STATE/run/$1.pid" ]] && kill -0 "$(cat "$STATE/run/$1.pid")" 2>/dev/null; }

if alive kube-apiserver && alive kubelet; then
  log "deleting pods so the kubelet releases their sandboxes and networks"
  $K delete pods --all -A --grace-period=0 --force --wait=false >/dev/null 2>&1
  for _ in $(seq 1 60); do
    [[ -z "$(ctr --address "$SOCK" -n k8s.io tasks ls -q 2>/dev/null)" ]] && break
    sleep 0.5
  done
fi
stop() {
  local name=$1 pidf="$STATE/run/$1.pid"
  [[ -f $pidf ]] || return 0
  local pid; pid="$(cat "$pidf")"
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null
  fi
  rm -f "$pidf"
}
stop devoidc # hack/cluster/signin.sh's development sign-in provider
stop kubelet
# Any task the kubelet did not get to: kill it through containerd.
if [[ -S $SOCK ]]; then
  for t in $(ctr --address "$SOCK" -n k8s.io tasks ls -q 2>/dev/null); do
    ctr --address "$SOCK" -n k8s.io tasks kill -s SIGKILL "$t" >/dev/null 2>&1
    ctr --address "$SOCK" -n k8s.io tasks delete "$t" >/dev/null 2>&1
  done
fi
for c in kube-scheduler kube-controller-manager containerd kube-apiserver etcd; do stop $c; done
# containerd's shims outlive it by design: stop the ones that belong to ours.
for pid in $(pgrep -f "containerd-shim.*$STATE" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done

# Mounts under our state dir (pod volumes, sandboxes), deepest first.
findmnt -rn -o TARGET 2>/dev/null | grep -F "$STATE/" | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
# Network namespaces our pods used, the bridge, and the host setting it changed.
for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep '^cni-'); do
  grep -qxF "$ns" "$STATE/run/netns.before" 2>/dev/null && continue # not ours
  ip netns pids "$ns" 2>/dev/null | grep -q . || ip netns delete "$ns" 2>/dev/null
done
rm -f "$STATE/run/netns.before"
ip link show "$BRIDGE" >/dev/null 2>&1 && ip link delete "$BRIDGE"
[[ -f "$STATE/run/ip_forward.orig" ]] && cat "$STATE/run/ip_forward.orig" > /proc/sys/net/ipv4/ip_forward && rm -f "$STATE/run/ip_forward.orig"
# The kubelet's cgroups (cgroupfs driver): empty ones only, deepest first.
for ctl in /sys/fs/cgroup/*/; do
  [[ -d "${ctl}kubepods" ]] || continue
  find "${ctl}kubepods" -depth -type d -exec rmdir {} \; 2>/dev/null
done
rm -rf "$STATE/cni/ipam"
if [[ "${1:-}" == "--purge" ]]; then rm -rf "$STATE"; log "purged $STATE"; fi
log "stopped"
