#!/usr/bin/env bash
# Install code-server 4.100.3 (VS Code 1.100.3, the newest that runs on Node 20) into
# editors/vscode/.code-server/, for the end-to-end test. Idempotent: a stamp file written
# as the very last step makes a second run a no-op.
#
# Works offline from everything but the package registries: the npm postinstall scripts
# of code-server fetch from GitHub and refuse root, so they are skipped and their useful
# steps are done here by hand (see /work/shared/RECIPES.md).
set -euo pipefail

VERSION=4.100.3
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="$HERE/.code-server"
STAMP="$PREFIX/installed-$VERSION"
CS="$PREFIX/node_modules/code-server"

if [[ -f "$STAMP" && -f "$CS/out/node/entry.js" ]]; then
  echo "code-server $VERSION already installed in $PREFIX"
  exit 0
fi

need_apt=()
command -v rg >/dev/null || need_apt+=(ripgrep)
[[ -x /usr/lib/chromium/chromium ]] || need_apt+=(chromium)
command -v g++ >/dev/null || need_apt+=(build-essential)
[[ -f /usr/include/gssapi/gssapi.h ]] || need_apt+=(libkrb5-dev)
if ((${#need_apt[@]})); then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "Installing Debian packages: ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
  else
    echo "Missing Debian packages: ${need_apt[*]} (install them as root and rerun)" >&2
    exit 1
  fi
fi

major=$(node -p 'process.versions.node.split(".")[0]')
if [[ "$major" != 20 ]]; then
  echo "warning: code-server $VERSION is tested here on Node 20, this is Node $major" >&2
fi

# Native modules (node-pty, kerberos, ...) are compiled by node-gyp, which would download
# Node's headers; point it at the headers installed beside node when none is configured.
if [[ -z "${npm_config_nodedir:-}" && "$(npm config get nodedir 2>/dev/null)" =~ ^(|undefined|null)$ ]]; then
  node_prefix="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
  if [[ -f "$node_prefix/include/node/node.h" ]]; then
    export npm_config_nodedir="$node_prefix"
  fi
fi

echo "Installing code-server $VERSION into $PREFIX (about 2 minutes)"
rm -rf "$PREFIX"
mkdir -p "$PREFIX"
cd "$PREFIX"
echo '{"name": "plansight-code-server", "private": true}' > package.json
npm install "code-server@$VERSION" --ignore-scripts --no-audit --no-fund --loglevel=error
npm rebuild argon2 --loglevel=error

cd "$CS/lib/vscode"
npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
npm_config_yes=true npm rebuild --loglevel=error
ln -sfn node_modules node_modules.asar
(cd bin/remote-cli && ln -sfn code-linux.sh code-server)
(cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
(cd extensions && npm install --omit=dev --no-audit --no-fund --loglevel=error)

# A throwaway HOME: code-server writes a default config under ~/.config otherwise.
scratch_home="$(mktemp -d)"
HOME="$scratch_home" node "$CS/out/node/entry.js" --version
rm -rf "$scratch_home"
touch "$STAMP"
echo "code-server $VERSION installed: $CS/out/node/entry.js"
