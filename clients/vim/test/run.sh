#!/usr/bin/env bash
# Vim + ALE test of clients/vim/chatls.vim against the real server.
# usage: run.sh /path/to/chatls
set -euo pipefail
BIN=$1
HERE=$(cd "$(dirname "$0")" && pwd)
ALE_DIR=${ALE_DIR:-/usr/share/vim-ale}
[ -f "$ALE_DIR/plugin/ale.vim" ] || { echo "FAIL vim-ale not found in $ALE_DIR (apt-get install vim-ale)"; exit 1; }
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/chatls-vim.XXXXXX")
trap 'conversation_stop; rm -rf "$SCRATCH"' EXIT
conversation_stop() { :; }
mkdir -p "$SCRATCH/ws" "$SCRATCH/config" "$SCRATCH/state"
cp "$HERE/../../testdata/approve-echo.chat" "$SCRATCH/ws/"
# The server's user config: an offline scripted model (SPEC §7 "script"), so
# the test can send without a key or network.
mkdir -p "$SCRATCH/config/chatls"
echo '{"responses":[{"text":"Hello from the scripted model."}]}' >"$SCRATCH/responses.json"
printf 'provider = "replay"\n[providers.replay]\ntype = "script"\nfile = "%s"\n' "$SCRATCH/responses.json" >"$SCRATCH/config/chatls/config.toml"

status=0
cd "$SCRATCH/ws"
CHATLS_BIN=$BIN CHATLS_WS=$SCRATCH/ws CHATLS_VIM=$HERE/../chatls.vim ALE_DIR=$ALE_DIR \
  CHATLS_LOG=$SCRATCH/chatls.log RESULT=$SCRATCH/result.txt \
  XDG_CONFIG_HOME=$SCRATCH/config XDG_STATE_HOME=$SCRATCH/state \
  timeout 60 vim -N -u NONE -i NONE -n -es -S "$HERE/test.vim" </dev/null >/dev/null 2>&1 || status=$?
cat "$SCRATCH/result.txt" 2>/dev/null || echo "FAIL vim wrote no result (exit $status)"
if [ "$status" != 0 ]; then
  [ "$status" = 124 ] && echo "vim: timed out after 60 s"
  echo "--- server log (last 40 lines):"
  tail -n 40 "$SCRATCH/chatls.log" 2>/dev/null || true
  exit "$status"
fi

# Whole conversations (conversation.vim), with providers of their own.
mkdir -p "$SCRATCH/conv/ws" "$SCRATCH/conv/state"
. "$HERE/../../testdata/conversation-env.sh" "$SCRATCH/conv"
cd "$SCRATCH/conv/ws"
CHATLS_BIN=$BIN CHATLS_WS=$SCRATCH/conv/ws CHATLS_VIM=$HERE/../chatls.vim ALE_DIR=$ALE_DIR \
  CHATLS_LOG=$SCRATCH/conv/chatls.log RESULT=$SCRATCH/conv/result.txt \
  XDG_CONFIG_HOME=$SCRATCH/conv/config XDG_STATE_HOME=$SCRATCH/conv/state \
  timeout 600 vim -N -u NONE -i NONE -n -es -S "$HERE/conversation.vim" </dev/null >/dev/null 2>&1 || status=$?
cat "$SCRATCH/conv/result.txt" 2>/dev/null || echo "FAIL vim wrote no result (exit $status)"
if [ "$status" != 0 ]; then
  [ "$status" = 124 ] && echo "vim conversation: timed out after 600 s"
  echo "--- server log (last 60 lines):"
  tail -n 60 "$SCRATCH/conv/chatls.log" 2>/dev/null || true
fi
exit "$status"
