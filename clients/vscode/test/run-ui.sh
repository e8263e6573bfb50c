#!/usr/bin/env bash
# Build, package and UI-test the VS Code extension in code-server.
# usage: run-ui.sh /path/to/chatls
# env: CODE_SERVER (default: /opt/chatls-editors/code-server/node_modules/.bin/code-server
#      or code-server on PATH), CHATLS_SCREENSHOT_DIR (optional), KEEP_SCRATCH=1
set -euo pipefail
BIN=$1
HERE=$(cd "$(dirname "$0")" && pwd)
EXT=$(dirname "$HERE")
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/chatls-vscode.XXXXXX")
[ "${KEEP_SCRATCH:-}" = 1 ] || trap 'rm -rf "$SCRATCH"' EXIT

fail() { echo "FAIL $1"; echo "vscode: 0 passed, 1 failed"; exit 1; }

cd "$EXT"
[ -d node_modules/vscode-languageclient ] || fail "npm packages missing: run clients/install-deps.sh"
npx --no-install tsc --noEmit -p . || fail "typecheck (tsc --noEmit)"
echo "PASS typecheck (tsc --noEmit)"
node esbuild.mjs --production || fail "bundle (esbuild)"
echo "PASS bundle (esbuild)"
# vsce comes from devDependencies (installed by install-deps.sh), so this works offline.
npx --yes @vscode/vsce@3 package --no-dependencies --skip-license \
  --baseImagesUrl https://github.com/chatls/chatls/raw/HEAD/clients/vscode --out "$SCRATCH/chatls.vsix" >"$SCRATCH/vsce.log" 2>&1 ||
  { cat "$SCRATCH/vsce.log"; fail "package the .vsix (vsce)"; }
echo "PASS package the .vsix (vsce): $(du -k "$SCRATCH/chatls.vsix" | cut -f1) KB"

CODE_SERVER=${CODE_SERVER:-/opt/chatls-editors/code-server/node_modules/.bin/code-server}
[ -x "$CODE_SERVER" ] || CODE_SERVER=$(command -v code-server || true)
[ -n "$CODE_SERVER" ] || fail "code-server not found (clients/install-deps.sh installs it)"

CHATLS_BIN=$BIN CODE_SERVER=$CODE_SERVER VSIX=$SCRATCH/chatls.vsix SCRATCH=$SCRATCH \
  timeout 420 node "$HERE/ui.test.js"
