# What the bench scripts share; sourced by them (after setting ROOT), not run.

# needs "PACKAGES" TOOL...: stops (exit 2) naming the Debian packages when a tool is missing.
needs() {
  local packages=$1
  shift
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install $packages)" >&2; exit 2; }
  done
}

# release_workbench: builds the release binary quietly and sets WORKBENCH to its path.
release_workbench() {
  swift build -c release --package-path "$ROOT" --product workbench >/dev/null 2>&1 \
    || { echo "release build failed: run swift build -c release" >&2; exit 1; }
  WORKBENCH="$ROOT/.build/release/workbench"
}
