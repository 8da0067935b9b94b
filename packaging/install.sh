#!/usr/bin/env bash
# Installs FilterWorkbench.
#
# usage: packaging/install.sh [--binary PATH] [PREFIX]  install (default PREFIX: /usr/local)
#        packaging/install.sh --archive [--binary PATH] [FOLDER]
#                                                       write filterworkbench-VERSION-linux-ARCH.tar.gz
#        packaging/install.sh --uninstall [PREFIX]        remove exactly what an install put there
#
# From the source tree it builds the release binary (or takes --binary PATH). It installs
# PREFIX/bin/workbench (stripped), the Swift runtime it loads in PREFIX/lib/workbench (so no
# toolchain is needed to run it), the plugin kit (`workbench plugin new` finds it), the presets,
# man pages (`man workbench-run`) and bash, zsh and fish completions. The list of installed
# files is kept in PREFIX/share/workbench/installed-files for --uninstall.
#
# --archive packs the same files with this script for machines without Swift (Debian 12 with
# libvips42 and libcurl4): tar -xzf the archive, then run its install.sh [PREFIX].
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=

fail() { echo "install.sh: $*" >&2; exit 1; }

case "${1:-}" in -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0;; esac

if [ "${1:-}" = "--uninstall" ]; then
  PREFIX=${2:-/usr/local}
  LIST="$PREFIX/share/workbench/installed-files"
  [ -f "$LIST" ] || fail "no FilterWorkbench installed in $PREFIX (no $LIST)"
  # Files first, then the folders the install made, deepest first, if they are empty.
  folders=$(sort -ru "$LIST.folders" 2>/dev/null || true)
  while read -r path; do rm -f "$PREFIX/$path"; done < "$LIST"
  rm -f "$LIST" "$LIST.folders"
  while read -r path; do [ -n "$path" ] && rmdir "$PREFIX/$path" 2>/dev/null || true; done <<< "$folders"
  echo "Removed FilterWorkbench from $PREFIX."
  exit 0
fi

ARCHIVE=
BINARY=
while [ $# -gt 0 ]; do
  case "$1" in
    --archive) ARCHIVE=yes; shift;;
    --binary) [ -n "${2:-}" ] || fail "--binary needs the path of a workbench build"
              BINARY=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2;;
    -*) fail "unknown option $1 (see packaging/install.sh --help)";;
    *) break;;
  esac
done
TARGET=${1:-}
[ -z "$TARGET" ] || case "$TARGET" in /*) ;; *) TARGET="$PWD/$TARGET";; esac

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT

# The files to install, as a tree relative to the prefix: from the source tree, or the tree
# this script was unpacked with.
if [ -f "$HERE/../Package.swift" ]; then
  ROOT=$(cd "$HERE/.." && pwd)
  TREE="$STAGE/tree"
  if [ -z "$BINARY" ]; then
    command -v swift >/dev/null || fail "swift is not on the PATH: the install builds the workbench from this tree (or give --binary)"
    echo "Building the release binary…"
    swift build -c release --package-path "$ROOT" --product workbench || fail "the release build failed"
    BINARY="$ROOT/.build/release/workbench"
  fi
  [ -x "$BINARY" ] || fail "$BINARY is not an executable workbench build"
  "$BINARY" --version >/dev/null || fail "$BINARY --version failed"
  mkdir -p "$TREE/bin" "$TREE/lib/workbench" "$TREE/share/man/man1" "$TREE/share/workbench"
  strip --strip-unneeded -o "$TREE/bin/workbench" "$BINARY" 2>/dev/null || cp "$BINARY" "$TREE/bin/workbench"
  chmod 755 "$TREE/bin/workbench"
  # The Swift runtime the binary loads from the toolchain; the binary looks in ../lib/workbench too.
  for library in $(ldd "$BINARY" | grep -o '/[^ ]*/swift/[^ ]*\.so[^ ]*' | sort -u); do
    strip --strip-unneeded -o "$TREE/lib/workbench/$(basename "$library")" "$library" 2>/dev/null || cp "$library" "$TREE/lib/workbench/"
  done
  (cd "$ROOT/Plugins/Kit" && find Package.swift Sources -type f) | while read -r file; do
    install -D -m 644 "$ROOT/Plugins/Kit/$file" "$TREE/share/workbench/kit/$file"
  done
  # The presets as committed (not what running them wrote beside them).
  if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$ROOT" ls-files Presets | sed 's|^Presets/||'
  else
    (cd "$ROOT/Presets" && find . -type f -not -path './out/*' | sed 's|^\./||')
  fi | while read -r file; do install -D -m 644 "$ROOT/Presets/$file" "$TREE/share/workbench/presets/$file"; done
  # Man pages and completions from the command definitions (what argument-parser knows of them).
  python3 "$ROOT/packaging/manual.py" "$BINARY" "$TREE/share/man/man1" >/dev/null || fail "could not write the man pages"
  install -d "$TREE/share/bash-completion/completions" "$TREE/share/zsh/site-functions" "$TREE/share/fish/vendor_completions.d"
  "$BINARY" --generate-completion-script bash > "$TREE/share/bash-completion/completions/workbench"
  "$BINARY" --generate-completion-script zsh > "$TREE/share/zsh/site-functions/_workbench"
  "$BINARY" --generate-completion-script fish > "$TREE/share/fish/vendor_completions.d/workbench.fish"
elif [ -x "$HERE/bin/workbench" ]; then
  TREE=$HERE
  [ -z "$BINARY" ] || fail "--binary is for installing from the source tree"
else
  fail "found neither the source tree ($HERE/../Package.swift) nor an unpacked archive ($HERE/bin/workbench)"
fi

# What the binary loads must be on this machine (libvips and libcurl come from Debian).
missing=$(ldd "$TREE/bin/workbench" 2>/dev/null | grep 'not found' | awk '{print $1}' | tr '\n' ' ' || true)
[ -z "$missing" ] || fail "this machine lacks ${missing}— apt-get install libvips42 libcurl4 (Debian 12), then run this again"
VERSION=$("$TREE/bin/workbench" --version) || fail "the workbench does not start here"

if [ -n "$ARCHIVE" ]; then
  [ -n "$ROOT" ] || fail "--archive packs from the source tree"
  FOLDER=${TARGET:-$PWD}
  [ -d "$FOLDER" ] || fail "$FOLDER is not a folder"
  NAME="filterworkbench-${VERSION%% *}-linux-$(uname -m)"
  cp "$0" "$TREE/install.sh"
  chmod 755 "$TREE/install.sh"
  tar -czf "$FOLDER/$NAME.tar.gz.partial" --owner=0 --group=0 --sort=name --transform "s|^\.|$NAME|" -C "$TREE" .
  mv "$FOLDER/$NAME.tar.gz.partial" "$FOLDER/$NAME.tar.gz"
  echo "Wrote $FOLDER/$NAME.tar.gz. On a Debian 12 machine with libvips42 and libcurl4:"
  echo "  tar -xzf $NAME.tar.gz && $NAME/install.sh [PREFIX]"
  exit 0
fi

PREFIX=${TARGET:-/usr/local}
mkdir -p "$PREFIX" 2>/dev/null || fail "cannot create $PREFIX (run as root for a system folder, or give a PREFIX you own)"
[ -w "$PREFIX" ] || fail "cannot write to $PREFIX (run as root for a system folder, or give a PREFIX you own)"
LIST="$PREFIX/share/workbench/installed-files"
FOLDERS=()
if [ -f "$LIST" ]; then
  # An earlier install: its files go (a page it had and this one has not is not left behind);
  # the folders it made stay on the list.
  echo "Replacing the install in $PREFIX."
  while read -r path; do rm -f "$PREFIX/$path"; done < "$LIST"
  [ -f "$LIST.folders" ] && mapfile -t FOLDERS < "$LIST.folders"
fi
(cd "$TREE" && find . -mindepth 1 -type d | sed 's|^\./||' | sort) > "$STAGE/folders"
(cd "$TREE" && find . -type f -not -name install.sh | sed 's|^\./||' | sort) > "$STAGE/files"
while read -r folder; do
  [ -d "$PREFIX/$folder" ] || { mkdir "$PREFIX/$folder"; FOLDERS+=("$folder/"); }
done < "$STAGE/folders"
while read -r file; do
  cp "$TREE/$file" "$PREFIX/$file.partial" && mv "$PREFIX/$file.partial" "$PREFIX/$file"
done < "$STAGE/files"
cp "$STAGE/files" "$LIST"
printf '%s\n' "${FOLDERS[@]}" > "$LIST.folders"
echo "Installed workbench $VERSION in $PREFIX: $(wc -l < "$LIST") files (listed in $LIST)."
case ":$PATH:" in *":$PREFIX/bin:"*) ;; *) echo "Add $PREFIX/bin to your PATH to run it as \`workbench\`.";; esac
echo "Completions: bash (with the bash-completion package) finds them where XDG_DATA_DIRS says, /usr/local/share and"
echo "/usr/share by default; zsh where \$fpath says (Debian's has /usr/local/share/zsh/site-functions); fish where"
echo "XDG_DATA_DIRS says (else: set -Ua fish_complete_path $PREFIX/share/fish/vendor_completions.d)."
