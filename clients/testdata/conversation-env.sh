# Sourced by the clients' run.sh: the providers of the conversation tests.
#   . clients/testdata/conversation-env.sh SCRATCH
# Writes SCRATCH/config/chatls/config.toml (point XDG_CONFIG_HOME at
# SCRATCH/config) with two providers, and starts the local Anthropic stand-in
# (anthropic-server.js); the caller's EXIT trap must run conversation_stop.
#   replay  type "script", three-turn/responses.json (the default provider)
#   wire    type "anthropic" at the local server, key from FAKE_API_KEY
# Exports CHATLS_EXPECT (the expected texts) and FAKE_API_KEY.
_conv_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_conv_scratch=$1
CHATLS_EXPECT=$_conv_dir/three-turn
export CHATLS_EXPECT FAKE_API_KEY=local-test-key
mkdir -p "$_conv_scratch/config/chatls"
command -v node >/dev/null || { echo "FAIL node not found (the local provider API runs on node)"; exit 1; }
node "$_conv_dir/anthropic-server.js" "$CHATLS_EXPECT/responses.json" "$_conv_scratch/api.port" \
  >"$_conv_scratch/api.log" 2>&1 &
CONV_API_PID=$!
conversation_stop() { kill "$CONV_API_PID" 2>/dev/null || true; }
for _ in $(seq 200); do [ -s "$_conv_scratch/api.port" ] && break; sleep 0.1; done
[ -s "$_conv_scratch/api.port" ] || { echo "FAIL the local provider API did not start"; cat "$_conv_scratch/api.log"; exit 1; }
cat >"$_conv_scratch/config/chatls/config.toml" <<TOML
provider = "replay"
model = "scripted"
[providers.replay]
type = "script"
file = "$CHATLS_EXPECT/responses.json"
[providers.replay.models.scripted]
price = { input = 3, output = 15 }
[providers.wire]
type = "anthropic"
baseURL = "http://127.0.0.1:$(cat "$_conv_scratch/api.port")/"
apiKeyEnv = "FAKE_API_KEY"
model = "claude-sonnet-4-5"
TOML
