#!/usr/bin/env bash
# Installs pinned command-line tools the tests use into bin/ from the Go
# module proxy (idempotent: a tool already at its version is kept). Prints
# nothing on success but the path of the tool asked for.
#   hack/tools.sh helm | golangci-lint | crd-ref-docs | gremlins | mailpit
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

case "${1:-}" in
  helm) install helm helm.sh/helm/v3/cmd/helm "$HELM_VERSION" "-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=37 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=37" "-b$HELM_BUILD" ;;
  golangci-lint) install golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint "$GOLANGCI_LINT_VERSION" ;;
  crd-ref-docs) install crd-ref-docs github.com/elastic/crd-ref-docs "$CRD_REF_DOCS_VERSION" ;;
  gremlins) install gremlins github.com/go-gremlins/gremlins/cmd/gremlins "$GREMLINS_VERSION" ;;
  mailpit) install mailpit github.com/axllent/mailpit "$MAILPIT_VERSION" ;;
  *) echo "usage: hack/tools.sh helm|golangci-lint|crd-ref-docs|gremlins|mailpit" >&2; exit 2 ;;
esac
