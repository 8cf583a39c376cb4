#!/usr/bin/env bash
# Fetch the JavaScript the book serves locally (no CDN at view time):
# require.js and the @jupyter-widgets/html-manager embed bundle, from the npm registry.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dest="$here/book/_static/vendor"
if [ -f "$dest/embed-amd.js" ] && [ -f "$dest/require.js" ]; then exit 0; fi
mkdir -p "$dest"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
( cd "$tmp" && npm pack --silent @jupyter-widgets/html-manager@1.0.7 requirejs@2.3.7 >/dev/null )
tar -xzf "$tmp"/jupyter-widgets-html-manager-1.0.7.tgz -C "$tmp"
cp "$tmp"/package/dist/embed-amd.js "$dest/"
# the bundle loads its webfonts relative to itself
find "$tmp/package/dist" -maxdepth 1 \( -name '*.woff*' -o -name '*.ttf' -o -name '*.eot' -o -name '*.svg' \) -exec cp {} "$dest/" \;
rm -rf "$tmp/package"
tar -xzf "$tmp"/requirejs-2.3.7.tgz -C "$tmp"
cp "$tmp"/package/require.js "$dest/require.js"
echo "fetched widget JavaScript into $dest"
