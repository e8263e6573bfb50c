#!/usr/bin/env bash
# Installs the ACP agents acp/'s tests run (pinned by their package-lock.json
# files): a scripted agent on @agentclientprotocol/sdk and the real
# @zed-industries/claude-code-acp (about 125 MB: it bundles Claude Code).
# Without them those tests skip, unless CHATLS_REQUIRE_ACP is set. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/testdata"

if ! command -v npm >/dev/null 2>&1; then
	echo "install-test-agents: npm not found; install Node.js 18 or newer (apt-get install nodejs npm)" >&2
	exit 1
fi
for dir in agent claude-code-acp; do
	if [[ -d $dir/node_modules && $dir/node_modules/.package-lock.json -nt $dir/package-lock.json ]]; then
		continue # already installed from this lock file
	fi
	npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
done
test -f agent/node_modules/@agentclientprotocol/sdk/package.json
test -x claude-code-acp/node_modules/.bin/claude-code-acp
