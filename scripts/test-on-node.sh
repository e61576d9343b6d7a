#!/usr/bin/env bash
# `npm ci && npm test` on a fresh clone of this checkout's HEAD, under another Node.js
# line than the one on PATH: the supported lines are 22 and 24 (package.json `engines`).
#
#   scripts/test-on-node.sh 24          # the newest 24.x; also 22, or an exact 24.22.3
#
# The runtime comes from the npm registry: the node-<os>-<arch> package carries the
# binary and the headers that native addons (better-sqlite3) compile against, so nothing
# is downloaded from anywhere else. Commits only: uncommitted changes are not in the clone.
# Fails on an EBADENGINE warning at install, as on a failing test. The clone is removed
# when everything passes and kept, with its path printed, when something fails.
set -euo pipefail

version="${1:?usage: scripts/test-on-node.sh <22 | 24 | x.y.z>}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/pipewatch-node${version}-XXXXXX")"
trap 'status=$?; if [ "$status" -eq 0 ]; then rm -rf "$work"; else echo "test-on-node: failed (exit $status); the clone is kept in $work" >&2; fi' EXIT

runtime="$("$root/scripts/node-from-registry.sh" "$version" "$work/runtime")"
export PATH="$runtime/bin:$PATH"
export npm_config_nodedir="$runtime"
echo "test-on-node: node $(node -v), npm $(npm -v), clone of $(git -C "$root" rev-parse --short HEAD) in $work/pipewatch" >&2

git clone --quiet "$root" "$work/pipewatch"
cd "$work/pipewatch"
npm ci --no-audit --no-fund 2>&1 | tee "$work/npm-ci.log"
if grep -q EBADENGINE "$work/npm-ci.log"; then
  echo "test-on-node: npm ci warned that a dependency does not support node $(node -v):" >&2
  grep EBADENGINE "$work/npm-ci.log" >&2
  exit 1
fi
npm test
echo "test-on-node: npm ci && npm test passed on node $(node -v)" >&2
