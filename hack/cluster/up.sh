#!/usr/bin/env bash
# Brings up a real single-node Kubernetes cluster on this machine, as root,
# with no container engine and no registry: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler and kubelet (built from the Go module
# proxy by hack/envtest-assets.sh), containerd + runc + CNI plugins from Debian,
# a bridge network, and a hostPath PersistentVolume for scan results.
# Everything lives under bin/cluster; hack/cluster/down.sh undoes it all.
# Idempotent: a running cluster is left as it is.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="${CLUSTER_DIR:-$ROOT/bin/cluster}"
NODE="$(hostname)"
POD_CIDR="${POD_CIDR:-10.244.0.0/24}"
SERVICE_CIDR="10.96.0.0/16"
BRIDGE=cwac0
log() { echo "cluster: $*" >&2; }

[[ $(id -u) -eq 0 ]] || { log "must run as root (kubelet and containerd need it)"; exit 1; }
getent hosts "$NODE" | grep -q '^127\.' || { log "the host name $NODE must resolve to a 127.x address (kubectl logs must stay on loopback)"; exit 1; }

if [[ -f "$STATE/run/kubelet.pid" ]] && kill -0 "$(cat "$STATE/run/kubelet.pid")" 2>/dev/null; then
  log "already running; kubeconfig $STATE/admin.kubeconfig"
  echo "$STATE/admin.kubeconfig"; exit 0
fi

start_time=$(date +%s.%N)
# Remember what the bridge plugin changes on the host, to restore it on teardown.
[[ -f "$STATE/run/ip_forward.orig" ]] || { mkdir -p "$STATE/run"; cat /proc/sys/net/ipv4/ip_forward > "$STATE/run/ip_forward.orig"; }
[[ -f "$STATE/run/netns.before" ]] || ip netns list 2>/dev/null | awk '{print $1}' > "$STATE/run/netns.before"
ASSETS="$(EXTRA_BINARIES="kubelet kube-controller-manager kube-scheduler" "$ROOT/hack/envtest-assets.sh")"
need=()
for c in containerd runc; do command -v $c >/dev/null || need+=($c); done
[[ -x /usr/lib/cni/bridge ]] || need+=(containernetworking-plugins)
for c in iptables conntrack openssl; do command -v $c >/dev/null || need+=($c); done
if (( ${#need[@]} )); then
  log "installing ${need[*]} from Debian"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
  # Debian's containerd service is not ours: keep it off.
  (systemctl disable --now containerd >/dev/null 2>&1 || true)
fi
mkdir -p "$STATE"/{pki,etcd,containerd/root,containerd/state,containerd/certs.d,kubelet,cni/net.d,logs,run,results}
PKI="$STATE/pki"

# --- PKI and credentials (once) ---
if [[ ! -f "$PKI/ca.crt" ]]; then
  log "generating the cluster's CA, serving certificate and service-account keys"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=cwac-local-ca" -keyout "$PKI/ca.key" -out "$PKI/ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" -keyout "$PKI/apiserver.key" -out "$PKI/apiserver.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:%s,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n' "$NODE" > "$PKI/apiserver.ext"
  openssl x509 -req -in "$PKI/apiserver.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial -days 3650 -extfile "$PKI/apiserver.ext" -out "$PKI/apiserver.crt" 2>/dev/null
  openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
  openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  : > "$PKI/tokens.csv"
  for who in admin kubelet controller-manager scheduler; do
    tok="$(openssl rand -hex 24)"
    echo "$tok" > "$PKI/$who.token"
    case $who in
      admin) echo "$tok,cwac-admin,cwac-admin,system:masters" >> "$PKI/tokens.csv" ;;
      kubelet) echo "$tok,system:node:$NODE,system:node:$NODE,system:nodes" >> "$PKI/tokens.csv" ;;
      controller-manager) echo "$tok,system:kube-controller-manager,system:kube-controller-manager" >> "$PKI/tokens.csv" ;;
      scheduler) echo "$tok,system:kube-scheduler,system:kube-scheduler" >> "$PKI/tokens.csv" ;;
    esac
  done
  chmod 600 "$PKI"/*.key "$PKI"/*.token "$PKI/tokens.csv"
fi
kubeconfig() { # name token-file
  cat > "$STATE/$1.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: cwac-local
  cluster: {server: "https://127.0.0.1:6443", certificate-authority: "$PKI/ca.crt"}
users:
- name: $1
  user: {token: "$(cat "$2")"}
contexts:
- name: cwac-local
  context: {cluster: cwac-local, user: $1, namespace: default}
current-context: cwac-local
KC
  chmod 600 "$STATE/$1.kubeconfig"
}
for who in admin kubelet controller-manager scheduler; do kubeconfig $who "$PKI/$who.token"; done

start() { # name logfile cmd...
  local name=$1; shift
  "$@" >"$STATE/logs/$name.log" 2>&1 &
  echo $! > "$STATE/run/$name.pid"
}
wait_for() { # what cmd...
  local what=$1; shift
  for _ in $(seq 1 240); do "$@" >/dev/null 2>&1 && return 0; sleep 0.25; done
  log "timed out waiting for $what; see $STATE/logs"; exit 1
}

# --- control plane ---
log "starting etcd and kube-apiserver"
start etcd "$ASSETS/etcd" --name cwac-local --data-dir "$STATE/etcd" \
  --listen-client-urls http://127.0.0.1:12379 --advertise-client-urls http://127.0.0.1:12379 \
  --listen-peer-urls http://127.0.0.1:12380 --initial-advertise-peer-urls http://127.0.0.1:12380 \
  --initial-cluster cwac-local=http://127.0.0.1:12380
start kube-apiserver "$ASSETS/kube-apiserver" --etcd-servers http://127.0.0.1:12379 \
  --bind-address 127.0.0.1 --secure-port 6443 --advertise-address 127.0.0.1 --endpoint-reconciler-type none \
  --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" --client-ca-file "$PKI/ca.crt" \
  --token-auth-file "$PKI/tokens.csv" --authorization-mode Node,RBAC \
  --service-account-issuer https://kubernetes.default.svc --service-account-key-file "$PKI/sa.pub" \
  --service-account-signing-key-file "$PKI/sa.key" --service-cluster-ip-range "$SERVICE_CIDR" \
  --allow-privileged=false --enable-admission-plugins NodeRestriction
K="$ASSETS/kubectl --kubeconfig $STATE/admin.kubeconfig"
wait_for "the API server" $K get --raw /readyz

log "starting kube-controller-manager and kube-scheduler"
# One of each, so no leader election: on a loaded machine a lease renewal
# that misses its deadline makes either exit, and nothing here restarts it
# (a Job's deadline then never fires).
start kube-controller-manager "$ASSETS/kube-controller-manager" --kubeconfig "$STATE/controller-manager.kubeconfig" --leader-elect=false \
  --authentication-kubeconfig "$STATE/controller-manager.kubeconfig" --authorization-kubeconfig "$STATE/controller-manager.kubeconfig" \
  --bind-address 127.0.0.1 --secure-port 10257 --service-account-private-key-file "$PKI/sa.key" --root-ca-file "$PKI/ca.crt" \
  --use-service-account-credentials=true
start kube-scheduler "$ASSETS/kube-scheduler" --kubeconfig "$STATE/scheduler.kubeconfig" --leader-elect=false \
  --authentication-kubeconfig "$STATE/scheduler.kubeconfig" --authorization-kubeconfig "$STATE/scheduler.kubeconfig" \
  --bind-address 127.0.0.1 --secure-port 10259

# --- containerd, CNI, pause image ---
log "starting containerd"
SOCK="$STATE/run/containerd.sock"
cat > "$STATE/containerd/config.toml" <<TOML
version = 2
root = "$STATE/containerd/root"
state = "$STATE/containerd/state"
[grpc]
  address = "$SOCK"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "docker.io/library/cwac-pause:1"
  restrict_oom_score_adj = true
  # Registries' settings, one directory per host (hosts.toml): the release
  # check (hack/cluster/release-upgrade.sh) adds its local registry there.
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$STATE/containerd/certs.d"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$STATE/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
TOML
cat > "$STATE/cni/net.d/10-cwac-bridge.conflist" <<JSON
{"cniVersion": "0.4.0", "name": "cwac-local", "plugins": [
  {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_CIDR"}]], "dataDir": "$STATE/cni/ipam"}},
  {"type": "loopback"}
]}
JSON
start containerd containerd --config "$STATE/containerd/config.toml"
wait_for "containerd" ctr --address "$SOCK" version
if [[ ! -f "$STATE/pause.tar" ]]; then
  # pause and imagebuild are in the tools' own module (hack/go.mod): go -C
  # builds and runs them in hack/, so their paths must be absolute.
  state="$(cd "$STATE" && pwd)"
  CGO_ENABLED=0 go -C "$ROOT/hack" build -ldflags "-s -w" -o "$state/pause" ./cluster/pause
  go -C "$ROOT/hack" run ./imagebuild --out "$state/pause.tar" --tag cwac-pause:1 --entrypoint /pause --user 65535:65535 \
    --file /pause="$state/pause" >/dev/null
fi
ctr --address "$SOCK" -n k8s.io images import --no-unpack=false "$STATE/pause.tar" >/dev/null

# --- kubelet ---
log "starting kubelet (node $NODE)"
cat > "$STATE/kubelet/config.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: 10250
readOnlyPort: 0
authentication:
  anonymous: {enabled: true}
  webhook: {enabled: false}
authorization: {mode: AlwaysAllow}
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
makeIPTablesUtilChains: false
containerRuntimeEndpoint: unix://$SOCK
imageServiceEndpoint: unix://$SOCK
registerNode: true
resolvConf: /etc/resolv.conf
serializeImagePulls: false
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
imageGCHighThresholdPercent: 100
YAML
start kubelet "$ASSETS/kubelet" --config "$STATE/kubelet/config.yaml" --kubeconfig "$STATE/kubelet.kubeconfig" \
  --root-dir "$STATE/kubelet/root" --hostname-override "$NODE" --cert-dir "$STATE/kubelet/pki"
wait_for "node $NODE to be Ready" bash -c "$K get node $NODE -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -q True"

# --- results volume: a hostPath PV the scanner (uid 1000) can write ---
# Kubelet creates each scan's subPath directory itself, as root, with the
# volume root's mode; the setgid bit makes it inherit group 1000 (the scanner's)
# and the mode makes it group-writable. (fsGroup does not apply to hostPath.)
chown 1000:1000 "$STATE/results"; chmod 2775 "$STATE/results"
$K apply -f - >/dev/null <<PV
apiVersion: v1
kind: PersistentVolume
metadata: {name: cwac-results-local, labels: {app.kubernetes.io/part-of: cwac-local}}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce, ReadWriteMany]
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: "$STATE/results", type: Directory}
PV
# --- the issue history's volume: the MCP server's SQLite file ---
# A hostPath PV of its own storage class (values-local.yaml's
# store.sqlite.storageClassName), so only the history's claim binds it. The
# MCP server runs as uid 65532 in group 1000: setgid and group-writable, as
# the results root (fsGroup does not apply to hostPath).
mkdir -p "$STATE/history"; chown 1000:1000 "$STATE/history"; chmod 2775 "$STATE/history"
$K apply -f - >/dev/null <<PV
apiVersion: v1
kind: PersistentVolume
metadata: {name: cwac-history-local, labels: {app.kubernetes.io/part-of: cwac-local}}
spec:
  storageClassName: cwac-history-local
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: "$STATE/history", type: Directory}
PV
end_time=$(date +%s.%N)
log "node Ready in $(echo "$end_time - $start_time" | bc 2>/dev/null || python3 -c "print(round($end_time-$start_time,1))")s; kubeconfig $STATE/admin.kubeconfig"
echo "$STATE/admin.kubeconfig"
