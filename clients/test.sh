#!/usr/bin/env bash
# Runs each editor client's test against a freshly built chatls.
#
#   clients/test.sh                 all clients
#   clients/test.sh nvim emacs      some of them
#
# Clients: helix node-protocol nvim emacs vim vscode screenshots (the last
# makes the terminal editors' pictures of clients/screenshots/run.sh into a
# scratch directory: each picture must show what it claims).
# An editor that is not installed is skipped with "SKIP: <editor> not
# installed (clients/install-deps.sh installs it; …)", except under CI=true, where it fails: CI installs them with
# clients/install-deps.sh. The last line is "clients: N passed, N failed, N skipped".
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLIENTS=$ROOT/clients
TMP=$(mktemp -d "${TMPDIR:-/tmp}/chatls-clients.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
ALL=(helix node-protocol nvim emacs vim vscode screenshots)
SELECTED=("${@:-${ALL[@]}}")

passed=0 failed=0 skipped=0
results=()

# missing NAME WHAT: report an editor that is not there (SKIP, or FAIL in CI).
missing() {
  if [ "${CI:-}" = true ]; then
    echo "FAIL: $1: $2 not installed (CI=true; clients/install-deps.sh installs it)"
    failed=$((failed + 1)); results+=("FAIL $1 ($2 not installed)")
  else
    echo "SKIP: $2 not installed (clients/install-deps.sh installs it; then run: make test-clients)"
    skipped=$((skipped + 1)); results+=("SKIP $1 ($2 not installed)")
  fi
}

# run NAME CMD...: run one client's test, indent its output, time it.
run() {
  local name=$1; shift
  local start=$SECONDS rc
  echo "=== $name"
  "$@" 2>&1 | sed -u 's/^/  /'
  rc=${PIPESTATUS[0]}
  local took=$((SECONDS - start))
  if [ "$rc" = 0 ]; then
    passed=$((passed + 1)); results+=("PASS $name (${took} s)")
  else
    failed=$((failed + 1)); results+=("FAIL $name (exit $rc, ${took} s)")
  fi
}

have() { command -v "$1" >/dev/null 2>&1; }

echo "=== build server"
if ! (cd "$ROOT" && CGO_ENABLED=0 go build -o "$TMP/chatls" ./cmd/chatls); then
  echo "FAIL: go build ./cmd/chatls"
  echo "clients: 0 passed, 1 failed, 0 skipped"
  exit 1
fi
BIN=$TMP/chatls
VSC=$CLIENTS/vscode

node_protocol() {
  (cd "$VSC" && node esbuild.mjs && CHATLS_BIN=$BIN node --test test/chatdoc.test.js test/protocol.test.js test/conversation.test.js)
}

nvim_tests() {
  CHATLS_PLUGIN=$CLIENTS/nvim timeout 30 nvim --headless -u NONE -i NONE -n \
    -c "luafile $CLIENTS/nvim/test/doc_test.lua" </dev/null || return 1
  "$CLIENTS/nvim/test/run.sh" "$BIN"
}

code_server_bin() {
  local cs=${CODE_SERVER:-${CHATLS_EDITORS_DIR:-/opt/chatls-editors}/code-server/node_modules/.bin/code-server}
  [ -x "$cs" ] && echo "$cs" && return
  command -v code-server
}

for c in "${SELECTED[@]}"; do
  case $c in
  helix) run helix bash -c "cd '$ROOT' && go test -count=1 ./clients/helix/" ;;
  node-protocol)
    if ! have node; then missing "$c" node
    elif [ ! -d "$VSC/node_modules/vscode-languageserver-protocol" ]; then missing "$c" "npm packages of clients/vscode"
    else run "$c" node_protocol; fi ;;
  nvim)
    if have nvim; then run nvim nvim_tests; else missing nvim nvim; fi ;;
  emacs)
    if ! have emacs; then missing emacs emacs
    elif ! ls /usr/share/emacs/site-lisp/elpa/eglot-* >/dev/null 2>&1 &&
      ! emacs --batch --eval '(progn (package-initialize) (require (quote eglot)))' >/dev/null 2>&1; then
      missing emacs eglot
    else run emacs "$CLIENTS/emacs/test/run.sh" "$BIN"; fi ;;
  vim)
    if ! have vim; then missing vim vim
    elif [ ! -f "${ALE_DIR:-/usr/share/vim-ale}/plugin/ale.vim" ]; then missing vim vim-ale
    else run vim "$CLIENTS/vim/test/run.sh" "$BIN"; fi ;;
  vscode)
    if [ -z "$(code_server_bin)" ]; then missing vscode code-server
    elif [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then missing vscode chromium
    elif [ ! -d "$VSC/node_modules/playwright-core" ]; then missing vscode "npm packages of clients/vscode"
    else CODE_SERVER=$(code_server_bin) run vscode "$VSC/test/run-ui.sh" "$BIN"; fi ;;
  screenshots)
    if ! have tmux; then missing screenshots tmux
    elif ! have nvim || ! have vim || ! have emacs; then missing screenshots "nvim, vim and emacs"
    elif [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then missing screenshots chromium
    elif [ ! -d "$VSC/node_modules/playwright-core" ]; then missing screenshots "npm packages of clients/vscode"
    else run screenshots env CHATLS_BIN="$BIN" CHATLS_SHOTS_TERMINAL_ONLY=1 "$CLIENTS/screenshots/run.sh" "$TMP/shots"; fi ;;
  *) echo "unknown client: $c (known: ${ALL[*]})"; exit 2 ;;
  esac
done

echo "=== summary"
printf '  %s\n' "${results[@]}"
echo "clients: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
