#!/usr/bin/env bash
# Installs the reference MCP server (@modelcontextprotocol/server-everything,
# pinned by testdata/npm/package-lock.json) that tools/mcp's tests and
# benchmarks run over stdio and streamable HTTP. Without it those tests skip,
# unless CHATLS_REQUIRE_NPM_MCP is set. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/testdata/npm"

if ! command -v npm >/dev/null 2>&1; then
	echo "install-test-server: npm not found; install Node.js 18 or newer (apt-get install nodejs npm)" >&2
	exit 1
fi
entry=node_modules/@modelcontextprotocol/server-everything/dist/index.js
if [[ -f $entry && node_modules/.package-lock.json -nt package-lock.json ]]; then
	exit 0 # already installed from this lock file
fi
npm ci --no-audit --no-fund --loglevel=error
test -f "$entry"
