#!/usr/bin/env bash
# Make the Debian base image without an image registry: mmdebstrap (Debian's packages only) → docker import.
#   containers/base.sh [TAG]        prints the tag (default kbx-base:bookworm) once the image exists
# The root filesystem holds containers/os-packages.txt and is cached as a tarball under
# ${KBX_CACHE:-~/.cache/kbx}, keyed by the package list: a later run (or CI) imports it again in seconds.
# Packages come from this host's apt sources (KBX_APT_SOURCES, default /etc/apt/sources.list.d/debian.sources),
# which must be Debian bookworm's: the images' Python is bookworm's CPython 3.11.
# Use it with: kbx image build --target cpu --base "$(containers/base.sh)"
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tag=${1:-kbx-base:bookworm}
cache=${KBX_CACHE:-$HOME/.cache/kbx}
sources=${KBX_APT_SOURCES:-/etc/apt/sources.list.d/debian.sources}
packages=$(grep -v '^#' "$here/os-packages.txt" | xargs | tr ' ' ,)
key=$(printf '%s\n' bookworm "$packages" "$(cat "$sources")" | sha256sum | cut -c1-16)
tarball=$cache/base-bookworm-$key.tar

if docker image inspect "$tag" --format '{{index .Config.Labels "io.kernelbenchx.base-key"}}' 2>/dev/null \
    | grep -qx "$key"; then
  echo "$tag"
  exit 0
fi
if [ ! -s "$tarball" ]; then
  command -v mmdebstrap >/dev/null || { echo "base.sh: mmdebstrap is missing (apt-get install mmdebstrap)" >&2; exit 2; }
  mkdir -p "$cache"
  echo "base.sh: mmdebstrap bookworm with $packages (a few minutes) → $tarball" >&2
  # Documentation, manual pages and locales are left out: nothing in an evaluation image reads them.
  mmdebstrap --quiet --variant=minbase --include="$packages" --aptopt='Acquire::Retries "3"' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/*' \
    --format=tar bookworm "$tarball.part" "$sources" >&2
  mv "$tarball.part" "$tarball"
fi
docker import --change 'CMD ["/bin/bash"]' --change 'ENV LANG=C.UTF-8' \
  --change "LABEL io.kernelbenchx.base-key=$key" "$tarball" "$tag" >/dev/null
echo "$tag"
