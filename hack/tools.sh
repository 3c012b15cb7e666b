#!/usr/bin/env bash
# Installs pinned command-line tools the tests use into bin/ from the Go
# module proxy (idempotent: a tool already at its version is kept). Prints
# nothing on success but the path of the tool asked for.
#   hack/tools.sh helm | golangci-lint | crd-ref-docs | gremlins | mailpit | seaweedfs
#                 | registry | cosign | syft | actionlint
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/bin"
HELM_VERSION="${HELM_VERSION:-v3.22.0}"
# Bump HELM_BUILD when the build flags change, so cached builds are replaced.
HELM_BUILD=2
GOLANGCI_LINT_VERSION="${GOLANGCI_LINT_VERSION:-v2.15.0}"
CRD_REF_DOCS_VERSION="${CRD_REF_DOCS_VERSION:-v0.3.0}"
# The mutation tester behind make mutate (hack/mutate.sh).
GREMLINS_VERSION="${GREMLINS_VERSION:-v0.6.0}"
# The SMTP server the mail tests send to (internal/testutil/mailpit).
MAILPIT_VERSION="${MAILPIT_VERSION:-v1.33.1}"
# The S3-compatible server the results bucket's tests use
# (internal/testutil/seaweedfs). Its module has replace directives, which
# go install refuses, so it is built from its module's source as the main
# module (build_module below).
SEAWEEDFS_VERSION="${SEAWEEDFS_VERSION:-v0.0.0-20261109003541-7506e5f91cd6}"
# make release (hack/release.sh) and its check: the OCI registry a release
# is published to on this machine (CNCF distribution), the signer and the
# SBOM maker.
REGISTRY_VERSION="${REGISTRY_VERSION:-v3.1.2}"
COSIGN_VERSION="${COSIGN_VERSION:-v2.6.5}"
SYFT_VERSION="${SYFT_VERSION:-v1.57.1}"
# make lint's check of the forge's workflows (.github/workflows).
ACTIONLINT_VERSION="${ACTIONLINT_VERSION:-v1.7.12}"
mkdir -p "$BIN"

install() { # name module version [ldflags] [build suffix]
  local name=$1 module=$2 version=$3 ldflags="-s -w ${4:-}" target="$BIN/$1-$3${5:-}"
  if [[ ! -x "$target" ]]; then
    echo "tools: building $name $version from the Go module proxy" >&2
    local tmp; tmp="$(mktemp -d)"
    GOBIN="$tmp" CGO_ENABLED=0 go install -ldflags "$ldflags" "$module@$version" >&2
    mv "$tmp/$name" "$target"
    rm -rf "$tmp"
  fi
  ln -sf "$(basename "$target")" "$BIN/$name"
  echo "$target"
}

build_module() { # name module version package
  local name=$1 module=$2 version=$3 pkg=$4 target="$BIN/$1-$3"
  if [[ ! -x "$target" ]]; then
    echo "tools: building $name $version from the Go module proxy (minutes)" >&2
    local src tmp; tmp="$(mktemp -d)"
    src="$(GOFLAGS=-mod=mod go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
    [[ -d "$src" ]] || { echo "tools: no source for $module@$version" >&2; exit 1; }
    cp -r "$src" "$tmp/src" && chmod -R u+w "$tmp/src"
    (cd "$tmp/src" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/$name" "$pkg") >&2
    mv "$tmp/$name" "$target"
    rm -rf "$tmp"
  fi
  ln -sf "$(basename "$target")" "$BIN/$name"
  echo "$target"
}

case "${1:-}" in
  helm) install helm helm.sh/helm/v3/cmd/helm "$HELM_VERSION" "-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=37 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=37" "-b$HELM_BUILD" ;;
  golangci-lint) install golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint "$GOLANGCI_LINT_VERSION" ;;
  crd-ref-docs) install crd-ref-docs github.com/elastic/crd-ref-docs "$CRD_REF_DOCS_VERSION" ;;
  gremlins) install gremlins github.com/go-gremlins/gremlins/cmd/gremlins "$GREMLINS_VERSION" ;;
  mailpit) install mailpit github.com/axllent/mailpit "$MAILPIT_VERSION" ;;
  seaweedfs) build_module weed github.com/seaweedfs/seaweedfs "$SEAWEEDFS_VERSION" ./weed ;;
  registry) install registry github.com/distribution/distribution/v3/cmd/registry "$REGISTRY_VERSION" ;;
  cosign) install cosign github.com/sigstore/cosign/v2/cmd/cosign "$COSIGN_VERSION" "-X sigs.k8s.io/release-utils/version.gitVersion=$COSIGN_VERSION" ;;
  syft) install syft github.com/anchore/syft/cmd/syft "$SYFT_VERSION" "-X main.version=${SYFT_VERSION#v}" ;;
  actionlint) install actionlint github.com/rhysd/actionlint/cmd/actionlint "$ACTIONLINT_VERSION" "-X github.com/rhysd/actionlint.version=$ACTIONLINT_VERSION" ;;
  *) echo "usage: hack/tools.sh helm|golangci-lint|crd-ref-docs|gremlins|mailpit|seaweedfs|registry|cosign|syft|actionlint" >&2; exit 2 ;;
esac
