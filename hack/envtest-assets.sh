#!/usr/bin/env bash
# Provisions the control-plane binaries that envtest (and the local dev
# control plane) need, without setup-envtest's downloads:
#   - etcd from Debian's etcd-server package,
#   - kube-apiserver and kubectl built from the Go module proxy.
# Idempotent: binaries already in $ASSETS are reused. Prints the asset dir.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.37.1}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ASSETS="${ENVTEST_ASSETS_DIR:-$ROOT/bin/k8s/$K8S_VERSION-linux-amd64}"
# More binaries can be asked for (the local cluster needs kubelet,
# kube-controller-manager and kube-scheduler): EXTRA_BINARIES="kubelet …".
BINARIES=(kube-apiserver kubectl ${EXTRA_BINARIES:-})

mkdir -p "$ASSETS"

log() { echo "envtest-assets: $*" >&2; }

# etcd: Debian's package installs /usr/bin/etcd; copy it so the asset dir is
# self-contained (envtest looks for all binaries in one directory).
if [[ ! -x "$ASSETS/etcd" ]]; then
  if ! command -v etcd >/dev/null 2>&1; then
    log "installing Debian etcd-server"
    if [[ $(id -u) -ne 0 ]]; then
      log "etcd is missing and this is not root: install etcd-server (apt-get install etcd-server)"; exit 1
    fi
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends etcd-server >&2
    # Debian starts an etcd service on install; we only want the binary.
    (systemctl disable --now etcd >/dev/null 2>&1 || service etcd stop >/dev/null 2>&1 || true)
  fi
  cp "$(command -v etcd)" "$ASSETS/etcd"
fi

missing=()
for b in "${BINARIES[@]}"; do
  [[ -x "$ASSETS/$b" ]] || missing+=("$b")
done

if (( ${#missing[@]} > 0 )); then
  log "building ${missing[*]} v$K8S_VERSION from the Go module proxy (several minutes on 2 cores, once)"
  work="$ROOT/bin/.k8s-build-$K8S_VERSION"
  mkdir -p "$work"
  minor="${K8S_VERSION#*.}"; minor="${minor%%.*}"
  staging_version="v0.${K8S_VERSION#*.}"
  # Read k8s.io/kubernetes' go.mod through the go tool, so GOPROXY is honoured.
  gomod="$(cd "$(mktemp -d)" && GOFLAGS= go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  [[ -s "$gomod" ]] || { log "could not download k8s.io/kubernetes@v$K8S_VERSION from the Go module proxy"; exit 1; }
  # The wrapper module: k8s.io/kubernetes itself replaces its staging modules
  # with ./staging paths that do not exist in the proxy's zip, so we replace
  # each with its published v0.x.y release instead.
  {
    echo "module cwac-operator.local/k8sbuild"
    echo
    echo "go 1.25"
    echo
    echo "require k8s.io/kubernetes v$K8S_VERSION"
    echo
    echo "replace ("
    sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*#\t\1 => \1 '"$staging_version"'#p' "$gomod"
    echo ")"
  } > "$work/go.mod"
  cat > "$work/tools.go" <<'GO'
//go:build tools

package k8sbuild

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
GO
  (
    cd "$work"
    export GOFLAGS=-mod=mod CGO_ENABLED=0
    go mod tidy >&2 2>&1 || go mod download >&2
    ldflags="-s -w -X k8s.io/component-base/version.gitVersion=v$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
    for b in "${missing[@]}"; do
      log "go build $b"
      go build -tags tools -ldflags "$ldflags" -o "$ASSETS/$b.tmp" "k8s.io/kubernetes/cmd/$b" >&2
      mv "$ASSETS/$b.tmp" "$ASSETS/$b"
    done
  )
fi

echo "$ASSETS"
