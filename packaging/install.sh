#!/usr/bin/env bash
# Installs FilterWorkbench from this source tree.
#
# usage: packaging/install.sh [--binary PATH] [PREFIX]  install (default PREFIX: /usr/local)
#        packaging/install.sh --uninstall [PREFIX]        remove exactly what an install put there
#
# --binary PATH installs that workbench build instead of building one (swift build -c release).
#
# Installs PREFIX/bin/workbench (release build, stripped), the Swift runtime it loads in
# PREFIX/lib/workbench (so it keeps working without the toolchain: copy PREFIX to any Debian 12
# machine with libvips42 and libcurl4), the plugin kit (`workbench plugin new` finds it), the
# presets, man pages (`man workbench-run`) and bash, zsh and fish completions. The list of
# installed files is kept in PREFIX/share/workbench/installed-files for --uninstall.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

fail() { echo "install.sh: $*" >&2; exit 1; }

case "${1:-}" in -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0;; esac

if [ "${1:-}" = "--uninstall" ]; then
  PREFIX=${2:-/usr/local}
  LIST="$PREFIX/share/workbench/installed-files"
  [ -f "$LIST" ] || fail "no FilterWorkbench installed in $PREFIX (no $LIST)"
  # Files first, then folders deepest first, and only folders left empty.
  folders=$(sort -ru "$LIST.folders" 2>/dev/null || true)
  while read -r path; do rm -f "$PREFIX/$path"; done < "$LIST"
  rm -f "$LIST" "$LIST.folders"
  while read -r path; do [ -n "$path" ] && rmdir "$PREFIX/$path" 2>/dev/null || true; done <<< "$folders"
  echo "Removed FilterWorkbench from $PREFIX."
  exit 0
fi
BINARY=
if [ "${1:-}" = "--binary" ]; then
  [ -n "${2:-}" ] || fail "--binary needs the path of a workbench build"
  BINARY=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
  shift 2
fi
case "${1:-}" in -*) fail "unknown option $1 (usage: packaging/install.sh [--binary PATH] [PREFIX] | --uninstall [PREFIX])";; esac
PREFIX=${1:-/usr/local}
case "$PREFIX" in /*) ;; *) PREFIX="$PWD/$PREFIX";; esac

mkdir -p "$PREFIX" 2>/dev/null || fail "cannot create $PREFIX (run as root for a system folder, or give a PREFIX you own)"
[ -w "$PREFIX" ] || fail "cannot write to $PREFIX (run as root for a system folder, or give a PREFIX you own)"

if [ -z "$BINARY" ]; then
  command -v swift >/dev/null || fail "swift is not on the PATH: the install builds the workbench from this tree (or give --binary)"
  echo "Building the release binary…"
  swift build -c release --package-path "$ROOT" --product workbench || fail "the release build failed"
  BINARY="$ROOT/.build/release/workbench"
fi
[ -x "$BINARY" ] || fail "$BINARY is not an executable workbench build"
VERSION=$("$BINARY" --version) || fail "$BINARY --version failed"

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
# Man pages from the command definitions (what argument-parser knows of every command).
PAGES="$STAGE/man"
python3 "$ROOT/packaging/manual.py" "$BINARY" "$PAGES" >/dev/null || fail "could not write the man pages"

INSTALLED=()
FOLDERS=()
LIST="$PREFIX/share/workbench/installed-files"
if [ -f "$LIST" ]; then
  # An earlier install: its files go (a page it had and this one has not is not left behind);
  # the folders it made stay on the list.
  echo "Replacing the install in $PREFIX."
  while read -r path; do rm -f "$PREFIX/$path"; done < "$LIST"
  [ -f "$LIST.folders" ] && mapfile -t FOLDERS < "$LIST.folders"
fi
put() { # put MODE SOURCE DESTINATION (relative to PREFIX)
  local folder
  folder=$(dirname "$3")
  while [ "$folder" != "." ] && [ ! -d "$PREFIX/$folder" ]; do FOLDERS+=("$folder/"); folder=$(dirname "$folder"); done
  install -D -m "$1" "$2" "$PREFIX/$3"
  INSTALLED+=("$3")
}

strip --strip-unneeded -o "$STAGE/workbench" "$BINARY" 2>/dev/null || cp "$BINARY" "$STAGE/workbench"
put 755 "$STAGE/workbench" bin/workbench
# The Swift runtime the binary loads from the toolchain; the binary looks in ../lib/workbench too.
ldd "$BINARY" | grep -o '/[^ ]*/swift/[^ ]*\.so[^ ]*' | sort -u > "$STAGE/swift-libraries"
while read -r library; do put 644 "$library" "lib/workbench/$(basename "$library")"; done < "$STAGE/swift-libraries"
(cd "$ROOT/Plugins/Kit" && find Package.swift Sources -type f) | sort > "$STAGE/kit"
while read -r file; do put 644 "$ROOT/Plugins/Kit/$file" "share/workbench/kit/$file"; done < "$STAGE/kit"
# The presets as committed (not what running them wrote beside them).
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
  git -C "$ROOT" ls-files Presets | sed 's|^Presets/||' > "$STAGE/presets"
else
  (cd "$ROOT/Presets" && find . -type f -not -path './out/*' | sed 's|^\./||') | sort > "$STAGE/presets"
fi
while read -r file; do put 644 "$ROOT/Presets/$file" "share/workbench/presets/$file"; done < "$STAGE/presets"
for page in "$PAGES"/workbench*.1; do put 644 "$page" "share/man/man1/$(basename "$page")"; done
"$BINARY" --generate-completion-script bash > "$STAGE/workbench.bash"
"$BINARY" --generate-completion-script zsh > "$STAGE/_workbench"
"$BINARY" --generate-completion-script fish > "$STAGE/workbench.fish"
put 644 "$STAGE/workbench.bash" share/bash-completion/completions/workbench
put 644 "$STAGE/_workbench" share/zsh/site-functions/_workbench
put 644 "$STAGE/workbench.fish" share/fish/vendor_completions.d/workbench.fish

printf '%s\n' "${INSTALLED[@]}" > "$LIST"
printf '%s\n' "${FOLDERS[@]}" > "$LIST.folders"
echo "Installed workbench $VERSION in $PREFIX: ${#INSTALLED[@]} files (listed in $LIST)."
case ":$PATH:" in *":$PREFIX/bin:"*) ;; *) echo "Add $PREFIX/bin to your PATH to run it as \`workbench\`.";; esac
echo "Completions: bash (with the bash-completion package) finds them where XDG_DATA_DIRS says, /usr/local/share and"
echo "/usr/share by default; zsh where \$fpath says (Debian's has /usr/local/share/zsh/site-functions); fish where"
echo "XDG_DATA_DIRS says (else: set -Ua fish_complete_path $PREFIX/share/fish/vendor_completions.d)."
