#!/usr/bin/env bash
# Builds the cached code-server that the editor-level (e2e) tests drive.
#
# Follows shared/notes/editor-testing.md step by step:
#   1. Debian packages libkrb5-dev, ripgrep, chromium (installed only when missing)
#   2. npm install --ignore-scripts code-server@$CODE_SERVER_VERSION in the cache folder
#   3. npm rebuild argon2
#   4. in node_modules/code-server/lib/vscode: production deps, native rebuilds,
#      ripgrep from Debian, node_modules.asar link, built-in extensions' deps
# Steps 5-8 (install the vsix, settings, start, browser) are done per test run by
# test/e2e/code-server.ts.
#
# Idempotent: each finished step leaves a marker under $CACHE/.steps and a
# finished build leaves $CACHE/.ready; a rerun skips whatever is done.
# Runs non-interactively (CI=true, no stdin). Environment:
#   CODE_SERVER_CACHE    cache folder (default: <repo>/.cache/code-server)
#   CODE_SERVER_VERSION  default 4.100.3 (the last line that runs on Node 20)
#   CODE_SERVER_REBUILD=1  wipe the cache and build it again
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="${CODE_SERVER_VERSION:-4.100.3}"
CACHE="${CODE_SERVER_CACHE:-$ROOT/.cache/code-server}"
STEPS="$CACHE/.steps"
READY="$CACHE/.ready"
VSCODE_DIR="$CACHE/node_modules/code-server/lib/vscode"
ENTRY="$CACHE/node_modules/code-server/out/node/entry.js"

export DEBIAN_FRONTEND=noninteractive
export npm_config_yes=true          # lets node-pty's install script run `npx node-gyp` without a prompt
export npm_config_audit=false
export npm_config_fund=false
export npm_config_update_notifier=false
export npm_config_loglevel="${npm_config_loglevel:-warn}"

START=$(date +%s)
say() { printf '[setup-code-server %3ss] %s\n' "$(( $(date +%s) - START ))" "$*"; }
die() { printf '[setup-code-server] ERROR: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------- step 1: Debian packages
need_pkgs=()
pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
pkg_installed libkrb5-dev || need_pkgs+=(libkrb5-dev)
{ pkg_installed ripgrep && command -v rg >/dev/null; } || need_pkgs+=(ripgrep)
{ pkg_installed chromium && [ -x /usr/bin/chromium ]; } || need_pkgs+=(chromium)

if [ "${#need_pkgs[@]}" -gt 0 ]; then
  SUDO=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "Debian packages missing (${need_pkgs[*]}) and not root; install them: apt-get install -y libkrb5-dev ripgrep chromium"
    SUDO=(sudo -n)
  fi
  say "step 1: installing Debian packages: ${need_pkgs[*]} (apt-get update first)"
  "${SUDO[@]}" apt-get update -q </dev/null
  "${SUDO[@]}" apt-get install -y -q libkrb5-dev ripgrep chromium </dev/null
else
  say "step 1: Debian packages libkrb5-dev, ripgrep, chromium already installed"
fi
for tool in node npm python3 make g++; do
  command -v "$tool" >/dev/null || die "'$tool' not found; the native rebuilds need node, npm, python3, make and g++"
done

# ---------------------------------------------------------------- cache state
if [ "${CODE_SERVER_REBUILD:-}" = "1" ]; then
  say "CODE_SERVER_REBUILD=1: wiping $CACHE"
  rm -rf "$CACHE"
fi
if [ -f "$READY" ] && [ "$(cat "$READY")" = "$VERSION" ] && [ -f "$ENTRY" ]; then
  say "code-server $VERSION already built in $CACHE (marker .ready); nothing to do"
  exit 0
fi
if [ -d "$CACHE" ] && [ -f "$STEPS/version" ] && [ "$(cat "$STEPS/version")" != "$VERSION" ]; then
  say "cache holds code-server $(cat "$STEPS/version"), want $VERSION: wiping $CACHE"
  rm -rf "$CACHE"
fi
mkdir -p "$STEPS"
echo "$VERSION" > "$STEPS/version"
rm -f "$READY"

# run_step NAME DESCRIPTION COMMAND...: runs COMMAND unless the step's marker exists
run_step() {
  local name="$1" desc="$2"; shift 2
  if [ -f "$STEPS/$name.done" ]; then
    say "$desc: done before, skipped"
    return 0
  fi
  say "$desc ..."
  local t0; t0=$(date +%s)
  "$@" </dev/null
  touch "$STEPS/$name.done"
  say "$desc: ok ($(( $(date +%s) - t0 ))s)"
}

# ---------------------------------------------------------------- step 2: code-server
step_install_code_server() {
  cd "$CACHE"
  [ -f package.json ] || npm init -y >/dev/null
  npm install --ignore-scripts "code-server@$VERSION"
}
run_step 2-code-server "step 2: npm install --ignore-scripts code-server@$VERSION" step_install_code_server

# ---------------------------------------------------------------- step 3: argon2
run_step 3-argon2 "step 3: npm rebuild argon2" bash -c "cd '$CACHE' && npm rebuild argon2"

# ---------------------------------------------------------------- step 4: lib/vscode
[ -d "$VSCODE_DIR" ] || die "$VSCODE_DIR missing after step 2"
run_step 4a-vscode-deps "step 4a: lib/vscode npm install --omit=dev --ignore-scripts" \
  bash -c "cd '$VSCODE_DIR' && npm install --omit=dev --ignore-scripts"
run_step 4b-vscode-native "step 4b: lib/vscode npm rebuild of the native modules (a few minutes)" \
  bash -c "cd '$VSCODE_DIR' && npm rebuild kerberos @vscode/spdlog native-watchdog node-pty @vscode/deviceid @parcel/watcher"
step_ripgrep() {
  cd "$VSCODE_DIR"
  mkdir -p node_modules/@vscode/ripgrep/bin
  cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
  chmod +x node_modules/@vscode/ripgrep/bin/rg
  ln -sfn node_modules node_modules.asar
}
run_step 4c-ripgrep "step 4c: Debian ripgrep into @vscode/ripgrep/bin, node_modules.asar link" step_ripgrep
run_step 4d-extensions "step 4d: lib/vscode/extensions npm install --omit=dev --ignore-scripts" \
  bash -c "cd '$VSCODE_DIR/extensions' && npm install --omit=dev --ignore-scripts"

# ---------------------------------------------------------------- check
say "check: code-server --version"
# --config inside the cache: code-server writes a default config file, keep it out of $HOME
version_out="$(node "$ENTRY" --config "$CACHE/config.yaml" --version </dev/null 2>&1)" \
  || die "code-server --version failed: $version_out"
echo "$version_out" | grep -q "^$VERSION " || die "expected code-server $VERSION, got: $version_out"
say "code-server reports: $(echo "$version_out" | grep "^$VERSION ")"
for mod in kerberos @vscode/spdlog native-watchdog node-pty @vscode/deviceid; do
  ls "$VSCODE_DIR/node_modules/$mod/build/Release/"*.node >/dev/null 2>&1 \
    || die "native module $mod has no build/Release/*.node after the rebuild"
done
# @parcel/watcher loads a prebuilt binary from its platform package
find "$VSCODE_DIR/node_modules/@parcel" -name '*.node' -path '*watcher*' 2>/dev/null | grep -q . \
  || die "@parcel/watcher has no native binary"

echo "$VERSION" > "$READY"
say "code-server $VERSION ready in $CACHE"
