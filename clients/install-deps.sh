#!/usr/bin/env bash
# Installs exactly what clients/test.sh needs on a fresh Debian 12 machine:
# the editors from apt, the VS Code extension's npm packages, and code-server
# from npm with the workarounds recorded in shared/editors/EDITORS.md.
#
# Idempotent and fast when everything is already there (a few dpkg/stat checks).
# Runs as root in CI (CI=true); uses sudo for apt when not root.
# Every step prints its name; a failure names the step and where its log is.
#
# Environment:
#   CHATLS_EDITORS_DIR  where code-server is installed (default /opt/chatls-editors)
#   CHATLS_SKIP_CODE_SERVER=1  skip the ~100 s code-server install
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
EDITORS_DIR=${CHATLS_EDITORS_DIR:-/opt/chatls-editors}
CODE_SERVER_VERSION=4.100.3 # newest release whose engines accept Node 20
RG_NPM_VERSION=1.15.11      # @vscode/ripgrep pinned by code-server 4.100.3
LOG_DIR=${TMPDIR:-/tmp}/chatls-install-deps
mkdir -p "$LOG_DIR"

step() { echo "install-deps: $*"; }
fail() {
  echo "install-deps: FAILED at step: $1" >&2
  [ -n "${2:-}" ] && [ -f "$2" ] && { echo "--- last lines of $2:" >&2; tail -n 30 "$2" >&2; }
  exit 1
}

SUDO=
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

# --- apt -------------------------------------------------------------------
APT_PKGS=(neovim emacs-nox elpa-eglot vim-nox vim-ale chromium ripgrep
  build-essential python3 pkg-config libkrb5-dev tmux)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  step "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update >"$LOG_DIR/apt-update.log" 2>&1 || fail "apt-get update" "$LOG_DIR/apt-update.log"
  $SUDO apt-get install -y "${missing[@]}" >"$LOG_DIR/apt-install.log" 2>&1 ||
    fail "apt-get install ${missing[*]}" "$LOG_DIR/apt-install.log"
else
  step "apt packages already installed"
fi

# --- npm packages of the VS Code extension (and the Node protocol test) ----
# A stamp with the lockfile's hash makes a re-run a no-op.
VSC=$HERE/vscode
stamp=$VSC/node_modules/.chatls-stamp
want=$(cat "$VSC/package.json" "$VSC"/package-lock.json 2>/dev/null | sha256sum | cut -c1-16 || true)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  step "npm ci in clients/vscode"
  if [ -f "$VSC/package-lock.json" ]; then
    (cd "$VSC" && npm ci --no-audit --no-fund) >"$LOG_DIR/npm-vscode.log" 2>&1 ||
      fail "npm ci in clients/vscode" "$LOG_DIR/npm-vscode.log"
  else
    (cd "$VSC" && npm install --no-audit --no-fund) >"$LOG_DIR/npm-vscode.log" 2>&1 ||
      fail "npm install in clients/vscode" "$LOG_DIR/npm-vscode.log"
  fi
  # Hash again: a first `npm install` has just written the lockfile.
  cat "$VSC/package.json" "$VSC/package-lock.json" | sha256sum | cut -c1-16 >"$stamp"
else
  step "clients/vscode node_modules up to date"
fi

# --- code-server -------------------------------------------------------------
CS_DIR=$EDITORS_DIR/code-server
CS_BIN=$CS_DIR/node_modules/.bin/code-server
if [ "${CHATLS_SKIP_CODE_SERVER:-}" = 1 ]; then
  step "code-server skipped (CHATLS_SKIP_CODE_SERVER=1)"
elif [ -x "$CS_BIN" ] && "$CS_BIN" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION "; then
  step "code-server $CODE_SERVER_VERSION already installed in $CS_DIR"
else
  step "code-server $CODE_SERVER_VERSION into $CS_DIR (about 100 s)"
  $SUDO mkdir -p "$CS_DIR" && $SUDO chown "$(id -u):$(id -g)" "$CS_DIR" || fail "create $CS_DIR"

  # Workaround 1: @vscode/ripgrep's postinstall downloads rg from GitHub, which is
  # unreachable; it looks in this cache first, so seed it with Debian's rg.
  step "seed the @vscode/ripgrep cache with Debian's rg"
  cache="${TMPDIR:-/tmp}/vscode-ripgrep-cache-$RG_NPM_VERSION"
  mkdir -p "$cache" "$CS_DIR/.rg" && cp /usr/bin/rg "$CS_DIR/.rg/rg" &&
    tar czf "$cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$CS_DIR/.rg" rg ||
    fail "seed the ripgrep cache in $cache (is ripgrep installed?)"

  [ -f "$CS_DIR/package.json" ] || (cd "$CS_DIR" && npm init -y >/dev/null) || fail "npm init in $CS_DIR"
  # Workaround 2: argon2 and kerberos fall back to building from source
  # (build-essential python3 libkrb5-dev, installed above).
  # Workaround 3: unsafe_perm, or code-server's postinstall refuses to run as root.
  # Workaround 4: yes=true, or node-pty's `npx node-gyp` is cancelled by an npmrc yes=false.
  step "npm install code-server@$CODE_SERVER_VERSION (log: $LOG_DIR/code-server.log)"
  (cd "$CS_DIR" && npm_config_unsafe_perm=true npm_config_yes=true \
    npm install "code-server@$CODE_SERVER_VERSION" --foreground-scripts --no-audit --no-fund) \
    >"$LOG_DIR/code-server.log" 2>&1 || {
    log=$LOG_DIR/code-server.log
    if grep -q 'ripgrep' "$log" && grep -qi 'error' "$log"; then
      fail "code-server postinstall: @vscode/ripgrep download (cache seed not used?)" "$log"
    elif grep -qE 'argon2|kerberos' "$log" && grep -q 'gyp ERR' "$log"; then
      fail "code-server postinstall: native build of argon2/kerberos (build deps?)" "$log"
    elif grep -q 'node-pty' "$log" && grep -qi 'canceled\|cancelled' "$log"; then
      fail "code-server postinstall: node-pty's npx node-gyp was cancelled (npm_config_yes)" "$log"
    else
      fail "npm install code-server@$CODE_SERVER_VERSION" "$log"
    fi
  }
  "$CS_BIN" --version >/dev/null || fail "code-server --version after install" "$LOG_DIR/code-server.log"
fi

step "done"
