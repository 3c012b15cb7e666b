#!/usr/bin/env bash
# Builds the stand-in CWAC image (our test scanner, NOT CWAC) laid out like
# CWAC's own image: workdir /cwac, /cwac/cwac.py, /cwac/config/config_default.json,
# non-root uid 1000, and a Python interpreter (Debian's python3, copied with the
# libraries it loads) at /usr/bin/python3. Writes an OCI archive and prints its path.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${1:-$ROOT/bin/images/cwac-standin.tar}"
TAG="${STANDIN_IMAGE:-cwac-standin:dev}"
PY=/usr/bin/python3.11
[[ -x $PY ]] || { echo "standin-image: Debian's python3.11 is needed (apt-get install python3)" >&2; exit 1; }
stage="$(mktemp -d)"; trap 'rm -rf "$stage"' EXIT

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

# The scanner, laid out like CWAC's tree.
mkdir -p "$stage/cwac/config" "$stage/cwac/templates"
cp "$ROOT/test/standin-cwac/cwac.py" "$stage/cwac/cwac.py"
cp "$ROOT/test/standin-cwac/config/config_default.json" "$stage/cwac/config/"
cp "$ROOT"/testdata/cwac-results/2026-11-21_23-18-23_real-scan-1/*.csv "$stage/cwac/templates/"

# The project's test site, so the same image can serve it inside the cluster
# (python3 -m http.server --directory /site).
cp -r "$ROOT/testdata/a11y-site" "$stage/site"

mkdir -p "$(dirname "$OUT")"
go run "$ROOT/hack/imagebuild" --out "$OUT" --tag "$TAG" --user 1000:1000 --workdir /cwac \
  --entrypoint "/usr/bin/python3 -u /cwac/cwac.py" --env PYTHONDONTWRITEBYTECODE=1 --env STANDIN_TEMPLATES=/cwac/templates \
  --dir /usr=$stage/usr --dir /cwac=$stage/cwac --dir /site=$stage/site "${files[@]}" >&2
echo "$OUT"
