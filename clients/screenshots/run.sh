#!/usr/bin/env bash
# Regenerates the pictures of the approval cycle in docs/img from the real
# editors: Neovim, Vim and Emacs in tmux (terminal.js), VS Code in
# code-server through its UI test (CHATLS_SCREENSHOT_DIR).
#
#   clients/screenshots/run.sh [OUT_DIR]     (default: docs/img)
#
# clients/test.sh runs it into a scratch directory as the "screenshots"
# client, so a picture the editors can no longer show fails the tests.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(realpath -m "${1:-$ROOT/docs/img}")
BIN=${CHATLS_BIN:-}
if [ -z "$BIN" ]; then
  BIN=$(mktemp -d "${TMPDIR:-/tmp}/chatls-shots.XXXXXX")/chatls
  (cd "$ROOT" && CGO_ENABLED=0 go build -o "$BIN" ./cmd/chatls)
fi
mkdir -p "$OUT"
node "$ROOT/clients/screenshots/terminal.js" "$BIN" "$OUT" nvim vim emacs
if [ "${CHATLS_SHOTS_TERMINAL_ONLY:-}" != 1 ]; then
  CODE_SERVER=${CODE_SERVER:-${CHATLS_EDITORS_DIR:-/opt/chatls-editors}/code-server/node_modules/.bin/code-server} \
    CHATLS_SCREENSHOT_DIR=$OUT bash "$ROOT/clients/vscode/test/run-ui.sh" "$BIN" | tail -n 1
fi
ls "$OUT"/*.png
