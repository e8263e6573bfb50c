#!/usr/bin/env bash
# Vim + ALE test of clients/vim/chatls.vim against the real server.
# usage: run.sh /path/to/chatls
set -euo pipefail
BIN=$1
HERE=$(cd "$(dirname "$0")" && pwd)
ALE_DIR=${ALE_DIR:-/usr/share/vim-ale}
[ -f "$ALE_DIR/plugin/ale.vim" ] || { echo "FAIL vim-ale not found in $ALE_DIR (apt-get install vim-ale)"; exit 1; }
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/chatls-vim.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
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
fi
exit "$status"
