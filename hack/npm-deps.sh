#!/usr/bin/env bash
# Installs the npm packages the end-to-end tests use (the official MCP
# TypeScript client, and axe-core for the HTML report's accessibility test),
# pinned by test/mcp-e2e/package-lock.json. Idempotent: skipped when
# node_modules matches the lock file.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/test/mcp-e2e"
command -v node >/dev/null && command -v npm >/dev/null || {
  echo "npm-deps: node and npm are required (Debian: apt-get install nodejs npm)" >&2; exit 1; }
stamp="$DIR/node_modules/.lock-sha256"
want="$(sha256sum "$DIR/package-lock.json" | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  exit 0
fi
echo "npm-deps: installing $(cd "$DIR" && node -e 'const p=require("./package.json");console.log(Object.entries(p.dependencies).map(([k,v])=>k+"@"+v).join(" "))')" >&2
(cd "$DIR" && npm ci --no-audit --no-fund --loglevel=error >&2)
echo "$want" > "$stamp"
