#!/usr/bin/env bash
# Builds the stand-in CWAC images (our test scanner, NOT CWAC) laid out like the
# image CWAC's own Dockerfile builds: workdir /cwac holding cwac.py and
# package.json but no config/ and no base_urls/ (CWAC's .dockerignore keeps
# only sources), a virtualenv interpreter at /cwac/.venv/bin/python (a venv
# over Debian's python3, copied with the libraries it loads), Chrome and
# chromedriver (stubs) under /cwac/chrome/ and /cwac/chromedriver/ where
# chrome_binary_location "auto" finds them, node_modules/, an empty
# /cwac/nltk_data owned by 1000:1000 with mode 700, USER 1000:1000,
# VOLUME /cwac/results, XDG_CONFIG_HOME and XDG_CACHE_HOME=/tmp/.chromium and
# CMD .venv/bin/python -u cwac.py config_default.json.
#
# Writes two OCI archives and prints their paths (or, with STANDIN_PUSH set,
# pushes the first to a registry):
#   cwac-standin.tar         (cwac-standin:dev)        as CWAC's Dockerfile builds it: scans need
#                                                      CWAC's defaults from the operator
#   cwac-standin-config.tar  (cwac-standin-config:dev) the same with config/config_default.json
#                                                      (the stand-in's own) and base_urls/ baked in
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT_DIR="${1:-$ROOT/bin/images}"
PY=/usr/bin/python3.11
[[ -x $PY ]] || { echo "standin-image: Debian's python3.11 is needed (apt-get install python3)" >&2; exit 1; }
stage="$(mktemp -d)"; trap 'rm -rf "$stage"' EXIT
PYVERSION="$("$PY" -c 'import platform; print(platform.python_version())')"

# The interpreter, its standard library, and every shared library it and its
# C extensions load.
mkdir -p "$stage/usr/bin" "$stage/usr/lib"
cp "$PY" "$stage/usr/bin/python3"
cp -a /usr/lib/python3.11 "$stage/usr/lib/python3.11"
rm -rf "$stage/usr/lib/python3.11/test" "$stage/usr/lib/python3.11/idlelib" "$stage/usr/lib/python3.11/tkinter" "$stage/usr/lib/python3.11/ensurepip" "$stage/usr/lib/python3.11/config-"*
find "$stage/usr/lib/python3.11" -name __pycache__ -prune -exec rm -rf {} +
libs="$( { ldd "$PY"; find /usr/lib/python3.11/lib-dynload -name '*.so' -exec ldd {} \; ; } 2>/dev/null | awk '/=>/ {print $3} /ld-linux/ {print $1}' | sort -u)"
files=()
for l in $libs; do
  [[ -f $l ]] || continue
  real="$(readlink -f "$l")"
  files+=("--file" "$l=$real")
done

# The scanner, laid out like CWAC's tree (the sources and package.json).
mkdir -p "$stage/cwac/templates"
cp "$ROOT/test/standin-cwac/cwac.py" "$ROOT/test/standin-cwac/package.json" "$stage/cwac/"
cp "$ROOT"/testdata/cwac-results/2026-11-21_23-18-23_real-scan-1/*.csv "$stage/cwac/templates/"
# The baked variant's extra: config/ and base_urls/ as in a CWAC checkout.
mkdir -p "$stage/config/config" "$stage/config/base_urls/visit" "$stage/config/base_urls/nohead"
cp "$ROOT/test/standin-cwac/config/config_default.json" "$stage/config/config/"
printf 'organisation,url,sector\nExample,https://example.invalid/,Example\n' > "$stage/config/base_urls/visit/example.csv"

# The project's test site, so the same image can serve it inside the cluster
# (python3 -m http.server --directory /site).
cp -r "$ROOT/testdata/a11y-site" "$stage/site"

# The rest of CWAC's Dockerfile's layout: a venv (links to the interpreter),
# Chrome and chromedriver stubs where "auto" looks (their directories are
# implied, root's, 0755), empty node_modules/ and results/, nltk_data/ of the
# scanner's own with mode 700, VOLUME, CMD and no entrypoint, the venv first
# on PATH (replacing imagebuild's default PATH).
printf 'home = /usr/bin\ninclude-system-site-packages = false\nversion = %s\n' "$PYVERSION" > "$stage/pyvenv.cfg"
printf 'stub: the stand-in scanner starts no browser\n' > "$stage/stub"
chmod 755 "$stage/stub"
chrome=/cwac/chrome/linux-0.0.0-standin/chrome-linux64 driver=/cwac/chromedriver/linux-0.0.0-standin/chromedriver-linux64
layout=(
  --symlink /cwac/.venv/bin/python=/usr/bin/python3 --symlink /cwac/.venv/bin/python3=python
  --file /cwac/.venv/pyvenv.cfg="$stage/pyvenv.cfg"
  --file "$chrome/chrome=$stage/stub" --file "$driver/chromedriver=$stage/stub"
  --mkdir /cwac/node_modules --mkdir /cwac/nltk_data=1000:1000:0700 --mkdir /cwac/results
  --volume /cwac/results --cmd '.venv/bin/python -u cwac.py config_default.json'
  --env VIRTUAL_ENV=.venv --env PATH=.venv/bin:/usr/local/bin:/usr/bin:/bin
  --env XDG_CONFIG_HOME=/tmp/.chromium --env XDG_CACHE_HOME=/tmp/.chromium
)

mkdir -p "$OUT_DIR"
# imagebuild is in the tools' own module (hack/go.mod): go -C runs it in
# hack/, so the archives' paths must be absolute.
OUT_DIR="$(cd "$OUT_DIR" && pwd)"
standin=(--user 1000:1000 --workdir /cwac --env PYTHONDONTWRITEBYTECODE=1 --env STANDIN_TEMPLATES=/cwac/templates
  --dir /usr=$stage/usr --dir /cwac=$stage/cwac --dir /site=$stage/site "${files[@]}" "${layout[@]}")
# STANDIN_PUSH=<reference>: push the first image to a registry instead, and
# print the reference and its digest (hack/cluster/release-upgrade.sh).
if [[ -n "${STANDIN_PUSH:-}" ]]; then
  # sed reads every line (head would close the pipe on imagebuild's next).
  go -C "$ROOT/hack" run ./imagebuild --push "$STANDIN_PUSH" "${standin[@]}" | sed -n 1p
  exit 0
fi
build() { # archive tag [extra imagebuild args]
  local out=$1 tag=$2; shift 2
  go -C "$ROOT/hack" run ./imagebuild --out "$out" --tag "$tag" "${standin[@]}" "$@" >&2
  echo "$out"
}
build "$OUT_DIR/cwac-standin.tar" "${STANDIN_IMAGE:-cwac-standin:dev}"
build "$OUT_DIR/cwac-standin-config.tar" "${STANDIN_CONFIG_IMAGE:-cwac-standin-config:dev}" \
  --dir /cwac/config=$stage/config/config --dir /cwac/base_urls=$stage/config/base_urls
