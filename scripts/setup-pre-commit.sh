#!/usr/bin/env bash
# Installs what the integration tests of the pre-commit hook and the GitHub Action need
# (test/integration/): Debian's pre-commit package, which brings nodeenv and python3-yaml (the
# action test parses action.yml with it). Only when missing, so a rerun costs nothing; runs
# non-interactively, as root or through `sudo -n`, like scripts/setup-code-server.sh.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

have() { command -v pre-commit >/dev/null && python3 -c 'import yaml' 2>/dev/null; }
if have; then
  echo "[setup-pre-commit] pre-commit $(pre-commit --version | cut -d' ' -f2) and python3-yaml already installed"
  exit 0
fi
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "[setup-pre-commit] ERROR: pre-commit missing and not root; install it: apt-get install -y pre-commit" >&2; exit 1; }
  SUDO=(sudo -n)
fi
echo "[setup-pre-commit] installing Debian packages pre-commit python3-yaml (apt-get update first)"
"${SUDO[@]}" apt-get update -q </dev/null
"${SUDO[@]}" apt-get install -y -q pre-commit python3-yaml </dev/null
have || { echo "[setup-pre-commit] ERROR: pre-commit or python3-yaml still missing after apt-get install" >&2; exit 1; }
