#!/usr/bin/env bash
# Batch Emacs + eglot test of clients/emacs/chatls.el against the real server.
# usage: run.sh /path/to/chatls
set -euo pipefail
BIN=$1
HERE=$(cd "$(dirname "$0")" && pwd)
EL=$(dirname "$HERE")/chatls.el
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/chatls-emacs.XXXXXX")
trap 'conversation_stop; rm -rf "$SCRATCH"' EXIT
conversation_stop() { :; }
mkdir -p "$SCRATCH/ws" "$SCRATCH/config" "$SCRATCH/state" "$SCRATCH/home"
cp "$HERE/../../testdata/approve-echo.chat" "$SCRATCH/ws/"
# The server's user config: an offline scripted model (SPEC §7 "script"), so
# the test can send without a key or network.
mkdir -p "$SCRATCH/config/chatls"
echo '{"responses":[{"text":"Hello from the scripted model."}]}' >"$SCRATCH/responses.json"
printf 'provider = "replay"\n[providers.replay]\ntype = "script"\nfile = "%s"\n' "$SCRATCH/responses.json" >"$SCRATCH/config/chatls/config.toml"

# chatls.el must byte-compile without warnings (both eglot and lsp-mode glue).
(cd "$SCRATCH" && cp "$EL" . && emacs --batch --eval '(package-initialize)' \
  --eval '(setq byte-compile-error-on-warn t)' -f batch-byte-compile chatls.el 2>&1 | grep -v '^Loading') ||
  true
if [ -f "$SCRATCH/chatls.elc" ]; then echo "PASS chatls.el byte-compiles without warnings"; else echo "FAIL chatls.el byte-compile"; exit 1; fi

status=0
# HOME: keep ~/.emacs.d out; Debian's elpa packages still load from /usr/share.
HOME=$SCRATCH/home CHATLS_BIN=$BIN CHATLS_WS=$SCRATCH/ws CHATLS_EL=$EL CHATLS_LOG=$SCRATCH/chatls.log \
  XDG_CONFIG_HOME=$SCRATCH/config XDG_STATE_HOME=$SCRATCH/state \
  timeout 60 emacs --batch -l "$HERE/chatls-test.el" </dev/null >"$SCRATCH/emacs.out" 2>&1 || status=$?
if [ "$status" = 0 ]; then
  # eglot is chatty in batch; its messages only help when something failed.
  grep -E '^(PASS|FAIL|emacs:)' "$SCRATCH/emacs.out"
else
  grep -v -e '^Loading' "$SCRATCH/emacs.out"
  [ "$status" = 124 ] && echo "emacs: timed out after 60 s"
  echo "--- server log (last 40 lines):"
  tail -n 40 "$SCRATCH/chatls.log" 2>/dev/null || true
  exit "$status"
fi

# Whole conversations (conversation-test.el), with providers of their own.
mkdir -p "$SCRATCH/conv/ws" "$SCRATCH/conv/state" "$SCRATCH/conv/home"
. "$HERE/../../testdata/conversation-env.sh" "$SCRATCH/conv"
HOME=$SCRATCH/conv/home CHATLS_BIN=$BIN CHATLS_WS=$SCRATCH/conv/ws CHATLS_EL=$EL CHATLS_LOG=$SCRATCH/conv/chatls.log \
  XDG_CONFIG_HOME=$SCRATCH/conv/config XDG_STATE_HOME=$SCRATCH/conv/state \
  timeout 600 emacs --batch -l "$HERE/conversation-test.el" </dev/null >"$SCRATCH/conv/emacs.out" 2>&1 || status=$?
if [ "$status" = 0 ]; then
  grep -E '^(PASS|FAIL|emacs conversation:)' "$SCRATCH/conv/emacs.out"
else
  grep -v -e '^Loading' -e '^\[eglot\]' -e '^\[jsonrpc\]' "$SCRATCH/conv/emacs.out" | grep -v '^chatls: ' | head -400
  [ "$status" = 124 ] && echo "emacs conversation: timed out after 600 s"
  echo "--- server log (last 60 lines):"
  tail -n 60 "$SCRATCH/conv/chatls.log" 2>/dev/null || true
fi
exit "$status"
