#!/usr/bin/env bash
# Headless Neovim test of clients/nvim against the real server.
# usage: run.sh /path/to/chatls   (clients/test.sh passes the binary it built)
set -euo pipefail
BIN=$1
HERE=$(cd "$(dirname "$0")" && pwd)
PLUGIN=$(dirname "$HERE")
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/chatls-nvim.XXXXXX")
trap 'conversation_stop; rm -rf "$SCRATCH"' EXIT
conversation_stop() { :; }

# A workspace of its own, and XDG dirs so the user's config and journal are
# neither read nor written.
mkdir -p "$SCRATCH/ws" "$SCRATCH/config" "$SCRATCH/state" "$SCRATCH/data"
cp "$PLUGIN/../testdata/approve-echo.chat" "$SCRATCH/ws/"
# The server's user config: an offline scripted model (SPEC §7 "script"), so
# the test can send without a key or network.
mkdir -p "$SCRATCH/config/chatls"
echo '{"responses":[{"text":"Hello from the scripted model."}]}' >"$SCRATCH/responses.json"
printf 'provider = "replay"\n[providers.replay]\ntype = "script"\nfile = "%s"\n' "$SCRATCH/responses.json" >"$SCRATCH/config/chatls/config.toml"

cd "$SCRATCH/ws"
status=0
CHATLS_BIN=$BIN CHATLS_WS=$SCRATCH/ws CHATLS_PLUGIN=$PLUGIN CHATLS_LOG=$SCRATCH/chatls.log \
  XDG_CONFIG_HOME=$SCRATCH/config XDG_STATE_HOME=$SCRATCH/state XDG_DATA_HOME=$SCRATCH/data \
  timeout 60 nvim --headless -u NONE -i NONE -n -c "luafile $HERE/test.lua" </dev/null || status=$?
if [ "$status" != 0 ]; then
  [ "$status" = 124 ] && echo "nvim: timed out after 60 s"
  echo "--- server log (last 40 lines):"
  tail -n 40 "$SCRATCH/chatls.log" 2>/dev/null || true
  exit "$status"
fi

# A rewind (rewind.lua): a workspace of its own with an open and a closed
# file that an approved call changes.
mkdir -p "$SCRATCH/rw/ws" "$SCRATCH/rw/config" "$SCRATCH/rw/state" "$SCRATCH/rw/data"
cp "$PLUGIN/../testdata/rewind.chat" "$SCRATCH/rw/ws/"
printf 'v0\n' >"$SCRATCH/rw/ws/f.txt"
printf 'g0\n' >"$SCRATCH/rw/ws/g.txt"
(cd "$SCRATCH/rw/ws" && CHATLS_BIN=$BIN CHATLS_WS=$SCRATCH/rw/ws CHATLS_PLUGIN=$PLUGIN CHATLS_LOG=$SCRATCH/rw/chatls.log \
  XDG_CONFIG_HOME=$SCRATCH/rw/config XDG_STATE_HOME=$SCRATCH/rw/state XDG_DATA_HOME=$SCRATCH/rw/data \
  timeout 90 nvim --headless -u NONE -i NONE -n -c "luafile $HERE/rewind.lua" </dev/null) || status=$?
[ "$status" = 124 ] && echo "nvim rewind: timed out after 90 s"
[ "$status" != 0 ] && { echo "--- server log (last 40 lines):"; tail -n 40 "$SCRATCH/rw/chatls.log" 2>/dev/null || true; exit "$status"; }

# Whole conversations (conversation.lua): a workspace and providers of
# their own, the script provider and a local Anthropic stand-in.
mkdir -p "$SCRATCH/conv/ws" "$SCRATCH/conv/state" "$SCRATCH/conv/data"
. "$PLUGIN/../testdata/conversation-env.sh" "$SCRATCH/conv"
cd "$SCRATCH/conv/ws"
CHATLS_BIN=$BIN CHATLS_WS=$SCRATCH/conv/ws CHATLS_PLUGIN=$PLUGIN CHATLS_LOG=$SCRATCH/conv/chatls.log \
  XDG_CONFIG_HOME=$SCRATCH/conv/config XDG_STATE_HOME=$SCRATCH/conv/state XDG_DATA_HOME=$SCRATCH/conv/data \
  timeout 600 nvim --headless -u NONE -i NONE -n -c "luafile $HERE/conversation.lua" </dev/null || status=$?
if [ "$status" != 0 ]; then
  [ "$status" = 124 ] && echo "nvim conversation: timed out after 600 s"
  echo "--- server log (last 60 lines):"
  tail -n 60 "$SCRATCH/conv/chatls.log" 2>/dev/null || true
  exit "$status"
fi

# The context window (context.lua): a model with a 2,000-token window; the
# script answers the summary request (no answer in it: response 0) and the
# send of the four-turn document (response 4, counted at 1,700 tokens).
CTX=$SCRATCH/ctx
mkdir -p "$CTX/ws" "$CTX/config/chatls" "$CTX/state" "$CTX/data"
SUMMARY="Goal: check the parser, the lexer and the numbers. Decided: all fine."
cat >"$CTX/responses.json" <<JSON
{"responses":[
  {"text":"$SUMMARY"}, {"text":"unused"}, {"text":"unused"}, {"text":"unused"},
  {"text":"Nothing is left.","usage":{"InputTokens":1700,"OutputTokens":20}}]}
JSON
printf 'provider = "replay"\nmodel = "small"\n[providers.replay]\ntype = "script"\nfile = "%s"\n[providers.replay.models.small]\ncontextWindow = 2000\n' \
  "$CTX/responses.json" >"$CTX/config/chatls/config.toml"
cd "$CTX/ws"
CHATLS_BIN=$BIN CHATLS_WS=$CTX/ws CHATLS_PLUGIN=$PLUGIN CHATLS_LOG=$CTX/chatls.log CHATLS_SUMMARY=$SUMMARY \
  XDG_CONFIG_HOME=$CTX/config XDG_STATE_HOME=$CTX/state XDG_DATA_HOME=$CTX/data \
  timeout 120 nvim --headless -u NONE -i NONE -n -c "luafile $HERE/context.lua" </dev/null || status=$?
if [ "$status" != 0 ]; then
  [ "$status" = 124 ] && echo "nvim context: timed out after 120 s"
  echo "--- server log (last 60 lines):"
  tail -n 60 "$CTX/chatls.log" 2>/dev/null || true
  exit "$status"
fi

# An external agent over ACP (acp.lua): the scripted agent on the official
# ACP SDK (acp/testdata/agent) as the provider, in the trusted user config;
# reads ask the user (autoApprove empty). Without node or the agent's
# node_modules it skips, unless CHATLS_REQUIRE_ACP is set (CI installs them
# with acp/install-test-agents.sh).
AGENT_DIR=$(cd "$PLUGIN/../.." && pwd)/acp/testdata/agent
if ! command -v node >/dev/null 2>&1 || [ ! -f "$AGENT_DIR/node_modules/@agentclientprotocol/sdk/package.json" ]; then
  why="node or the scripted agent's node_modules missing (run: bash acp/install-test-agents.sh)"
  if [ -n "${CHATLS_REQUIRE_ACP:-}" ]; then
    echo "FAIL nvim acp: $why; CHATLS_REQUIRE_ACP is set"
    exit 1
  fi
  echo "SKIP nvim acp: $why"
  exit 0
fi
ACP=$SCRATCH/acp
mkdir -p "$ACP/ws" "$ACP/config/chatls" "$ACP/state" "$ACP/data"
cat >"$ACP/config/chatls/config.toml" <<TOML
provider = "agent"
[providers.agent]
type = "acp"
command = ["node", "$AGENT_DIR/agent.mjs"]
env = { ACP_TEST_LOG = "$ACP/requests.log" }
[tools]
autoApprove = []
TOML
cd "$ACP/ws"
CHATLS_BIN=$BIN CHATLS_WS=$ACP/ws CHATLS_PLUGIN=$PLUGIN CHATLS_LOG=$ACP/chatls.log CHATLS_ACP_LOG=$ACP/requests.log \
  XDG_CONFIG_HOME=$ACP/config XDG_STATE_HOME=$ACP/state XDG_DATA_HOME=$ACP/data \
  timeout 120 nvim --headless -u NONE -i NONE -n -c "luafile $HERE/acp.lua" </dev/null || status=$?
if [ "$status" != 0 ]; then
  [ "$status" = 124 ] && echo "nvim acp: timed out after 120 s"
  echo "--- server log (last 60 lines):"
  tail -n 60 "$ACP/chatls.log" 2>/dev/null || true
fi
exit "$status"
