#!/usr/bin/env bash
# Installs a Node.js runtime from the npm registry into DIR and prints its folder, whose
# bin/node is the binary and include/node the headers native addons compile against:
#
#   runtime="$(scripts/node-from-registry.sh 24 /tmp/node24)"
#   PATH="$runtime/bin:$PATH" npm_config_nodedir="$runtime" npm ci
#
# The node-<os>-<arch> package carries both, so this works where the registry is the
# only thing reachable (no nodejs.org downloads, for node-gyp's headers either).
# VERSION is a line (22, 24) for its newest release, or an exact version (24.22.3).
set -euo pipefail

version="${1:?usage: scripts/node-from-registry.sh <22 | 24 | x.y.z> <dir>}"
dir="${2:?usage: scripts/node-from-registry.sh <22 | 24 | x.y.z> <dir>}"
package="node-$(node -p process.platform)-$(node -p process.arch)"
echo "node-from-registry: ${package}@${version} into ${dir}" >&2
npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
  "${package}@${version}" >&2
runtime="$dir/node_modules/${package}"
"$runtime/bin/node" -v >&2
echo "$runtime"
