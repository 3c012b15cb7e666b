#!/usr/bin/env bash
# make release: builds and publishes one release of the operator from a
# clean checkout of a version tag, without a container engine, to the
# registry REGISTRY (docs/releasing.md):
#   1. the binaries for each platform, static, with the build's VCS stamp;
#   2. the operator image, one per platform under one index, pushed;
#   3. an SPDX SBOM of each platform's image (syft reads the pushed image);
#   4. the chart, its image pinned by digest, pushed as an OCI artifact;
#   5. signatures of the image (index and platforms) and of the chart, the
#      SBOMs as attestations of their images and SLSA provenance of both
#      (cosign: with COSIGN_KEY, a key pair; with COSIGN_KEYLESS=1, the
#      forge's OIDC identity through Sigstore's public services).
# What it published is listed in bin/release/<version>/release.env.
#
#   REGISTRY=ghcr.io/owner COSIGN_KEYLESS=1 make release
#   REGISTRY=127.0.0.1:5000/cwac COSIGN_KEY=cosign.key COSIGN_PASSWORD=… make release
#
# VERSION is the tag at HEAD (v<semver>); set VERSION to check it is that.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

die() { echo "release: $*" >&2; exit 1; }
log() { echo "release: $*" >&2; }

[[ -n "${REGISTRY:-}" ]] || die "REGISTRY is required: where to publish, such as ghcr.io/<owner> (images go to \$REGISTRY/cwac-operator, the chart to oci://\$REGISTRY/charts)"
REGISTRY="${REGISTRY%/}"
[[ "$REGISTRY" =~ ^[a-z0-9.-]+(:[0-9]+)?(/[a-z0-9._/-]+)?$ ]] || die "REGISTRY $REGISTRY: want host[:port][/path] in lower case"

# The version is the release's tag: a release is of a commit that is tagged,
# with nothing changed beside it, so its binaries say which commit they are.
[[ -z "$(git status --porcelain)" ]] || die "the working tree has changes: release from a clean checkout of the tag (git status)"
TAG="$(git tag --points-at HEAD --list 'v*' | sort -V | tail -1)"
[[ -n "$TAG" ]] || die "HEAD has no v* tag: tag the commit to release (git tag v1.2.0)"
if [[ -n "${VERSION:-}" && "$VERSION" != "$TAG" ]]; then
  die "VERSION $VERSION is not HEAD's tag $TAG"
fi
VERSION="$TAG"
SEMVER='^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$'
[[ "$VERSION" =~ $SEMVER ]] || die "tag $VERSION is not v<major>.<minor>.<patch>[-<pre-release>]"
CHART_VERSION="${VERSION#v}"
COMMIT="$(git rev-parse HEAD)"

case "${COSIGN_KEYLESS:-}" in
  1) [[ -z "${COSIGN_KEY:-}" ]] || die "set COSIGN_KEY or COSIGN_KEYLESS=1, not both"
     SIGN_WITH=() ;;
  "") [[ -n "${COSIGN_KEY:-}" ]] || die "COSIGN_KEY (a cosign key pair's private key) or COSIGN_KEYLESS=1 (the forge's identity) is required"
     [[ "$COSIGN_KEY" == *://* || -r "$COSIGN_KEY" ]] || die "COSIGN_KEY $COSIGN_KEY: no such readable file"
     # A key pair signs for local use: nothing goes to Sigstore's public
     # transparency log (verify with --insecure-ignore-tlog).
     SIGN_WITH=(--key "$COSIGN_KEY" --tlog-upload=false) ;;
  *) die "COSIGN_KEYLESS=${COSIGN_KEYLESS}: want 1 or unset" ;;
esac

PLATFORMS=(${PLATFORMS:-linux/amd64 linux/arm64})
BINARIES=(manager cwac-runner mcp-server)
OUT="$ROOT/bin/release/$VERSION"
# Every binary's build flags (the provenance lists them): -buildvcs=true
# puts the commit and the tag (as the main module's version) into the binary
# even where GOFLAGS turns stamping off.
BUILD_FLAGS=(-buildvcs=true -trimpath -ldflags "-s -w")
STARTED="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
HOST="${REGISTRY%%/*}"
PLAIN_HTTP=() COSIGN_HTTP=() SYFT_HTTP=false
# A registry on this machine speaks plain HTTP (the release check's).
if [[ "$HOST" =~ ^(localhost|127\.[0-9.]+)(:[0-9]+)?$ ]]; then
  PLAIN_HTTP=(--plain-http) COSIGN_HTTP=(--allow-http-registry) SYFT_HTTP=true
fi

COSIGN="$(./hack/tools.sh cosign)"
SYFT="$(./hack/tools.sh syft)"
HELM="$(./hack/tools.sh helm)"

rm -rf "$OUT" && mkdir -p "$OUT"

log "building ${BINARIES[*]} for ${PLATFORMS[*]} at $VERSION ($COMMIT)"
for p in "${PLATFORMS[@]}"; do
  arch="${p#*/}"
  for b in "${BINARIES[@]}"; do
    CGO_ENABLED=0 GOOS="${p%/*}" GOARCH="$arch" go build "${BUILD_FLAGS[@]}" -o "$OUT/$arch/$b" "./cmd/$b"
  done
done

log "pushing the image $REGISTRY/cwac-operator:$VERSION"
args=(--push "$REGISTRY/cwac-operator:$VERSION" --entrypoint /manager --user 65532:65532)
for p in "${PLATFORMS[@]}"; do args+=(--platform "$p"); done
for b in "${BINARIES[@]}"; do args+=(--file "/$b=$OUT/{arch}/$b"); done
(cd hack && go run ./imagebuild "${args[@]}") > "$OUT/image.txt"
read -r _ IMAGE_DIGEST < <(head -1 "$OUT/image.txt")
IMAGE="$REGISTRY/cwac-operator@$IMAGE_DIGEST"

log "SBOM of each platform's image"
declare -A PLATFORM_DIGEST=()
while read -r plat digest; do PLATFORM_DIGEST[$plat]="$digest"; done < <(tail -n +2 "$OUT/image.txt")
for p in "${PLATFORMS[@]}"; do
  [[ -n "${PLATFORM_DIGEST[$p]:-}" ]] || die "imagebuild named no image for $p"
  SYFT_REGISTRY_INSECURE_USE_HTTP="$SYFT_HTTP" SYFT_CHECK_FOR_APP_UPDATE=false \
    "$SYFT" scan --quiet "registry:$REGISTRY/cwac-operator@${PLATFORM_DIGEST[$p]}" \
    --source-name cwac-operator --source-version "$VERSION" -o "spdx-json=$OUT/sbom-${p//\//-}.spdx.json"
done

log "packaging the chart $CHART_VERSION with the image pinned by digest"
cp -r charts/cwac-operator "$OUT/chart"
sed -i -e "s|^version: .*|version: $CHART_VERSION|" -e "s|^appVersion: .*|appVersion: \"$CHART_VERSION\"|" "$OUT/chart/Chart.yaml"
# The image block's three lines, each once in values.yaml (release check
# renders the packaged chart and compares the image it names).
sed -i -e "0,/^  repository: cwac-operator\$/s||  repository: $REGISTRY/cwac-operator|" \
  -e "0,/^  tag: \"\"\$/s||  tag: \"$VERSION\"|" \
  -e "0,/^  digest: \"\"\$/s||  digest: \"$IMAGE_DIGEST\"|" "$OUT/chart/values.yaml"
grep -q "^  digest: \"$IMAGE_DIGEST\"\$" "$OUT/chart/values.yaml" || die "could not pin the image in the chart's values.yaml"
"$HELM" package "$OUT/chart" --destination "$OUT" >&2
CHART_TGZ="$OUT/cwac-operator-$CHART_VERSION.tgz"
"$HELM" push "$CHART_TGZ" "oci://$REGISTRY/charts" "${PLAIN_HTTP[@]}" 2>&1 | tee "$OUT/chart-push.txt" >&2
CHART_DIGEST="$(sed -n 's/^Digest: \(sha256:[0-9a-f]\{64\}\)$/\1/p' "$OUT/chart-push.txt")"
[[ -n "$CHART_DIGEST" ]] || die "helm push printed no digest"
CHART="$REGISTRY/charts/cwac-operator@$CHART_DIGEST"

log "provenance"
prov=(--source "git+${SOURCE_URL:-$(git remote get-url origin 2>/dev/null || echo "file://$ROOT")}" --ref "refs/tags/$VERSION" --commit "$COMMIT"
  --builder-id "${BUILDER_ID:-make release on $(hostname)}" --invocation-id "${INVOCATION_ID:-}" --started "$STARTED" --go-flags "${BUILD_FLAGS[*]}")
for p in "${PLATFORMS[@]}"; do prov+=(--platform "$p"); done
(cd hack && go run ./provenance "${prov[@]}") > "$OUT/provenance.json"

log "signing and attesting"
cosign() { "$COSIGN" "$@" --yes "${SIGN_WITH[@]}" "${COSIGN_HTTP[@]}"; }
cosign sign --recursive "$IMAGE" >&2
cosign sign "$CHART" >&2
cosign attest --type slsaprovenance1 --predicate "$OUT/provenance.json" "$IMAGE" >&2
cosign attest --type slsaprovenance1 --predicate "$OUT/provenance.json" "$CHART" >&2
for p in "${PLATFORMS[@]}"; do
  cosign attest --type spdxjson --predicate "$OUT/sbom-${p//\//-}.spdx.json" "$REGISTRY/cwac-operator@${PLATFORM_DIGEST[$p]}" >&2
done

{
  echo "VERSION=$VERSION"
  echo "COMMIT=$COMMIT"
  echo "IMAGE=$IMAGE"
  for p in "${PLATFORMS[@]}"; do echo "IMAGE_${p//[\/-]/_}=$REGISTRY/cwac-operator@${PLATFORM_DIGEST[$p]}"; done
  echo "CHART=$CHART"
  echo "CHART_REF=oci://$REGISTRY/charts/cwac-operator"
  echo "CHART_VERSION=$CHART_VERSION"
} > "$OUT/release.env"
log "published $VERSION:"
cat "$OUT/release.env"
