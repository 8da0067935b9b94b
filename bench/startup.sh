#!/usr/bin/env bash
# What a run costs before its first body, against what loading libvips alone costs.
#
# usage: bench/startup.sh [RUNS]      (default 20; medians in milliseconds)
#
# Rows: a C program that links libvips and does nothing (the dynamic loader resolving Debian's
# libvips and its ~100 libraries: the floor for any program using it), the same calling
# vips_init (with and without libvips' modules), `workbench --version`, `workbench validate`
# of workload W's preset, and `workbench run` of W on one photo: the time from exec to the first
# body (the input file opened, seen by strace) and to the end.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-20}
. "$ROOT/bench/lib.sh"
needs "gcc pkg-config strace python3" gcc pkg-config strace python3
release_workbench
BIN=$WORKBENCH
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/empty.c" <<'C'
#include <stdlib.h>
#include <vips/vips.h>
int main(int argc, char **argv) {
    if (argc > 1 && vips_init(argv[0]) != 0) return 1;
    return 0;
}
C
gcc -O2 "$WORK/empty.c" -o "$WORK/empty" $(pkg-config --cflags --libs vips)
mkdir -p "$WORK/one"
cp "$ROOT/Presets/samples/$(ls "$ROOT/Presets/samples" | grep -m1 '\.jpg$')" "$WORK/one/"
PHOTO=$(ls "$WORK/one")

# Median wall milliseconds of a command run RUNS times.
median() {
  python3 - "$RUNS" "$@" <<'PY'
import statistics, subprocess, sys, time
runs, command = int(sys.argv[1]), sys.argv[2:]
times = []
for _ in range(runs):
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    times.append((time.perf_counter() - start) * 1000)
print(f"{statistics.median(times):.1f}")
PY
}

# Median milliseconds from exec to the input file's open, and to the exit, under strace
# (seccomp-filtered: only execve and openat stop the process).
first_body() {
  python3 - "$RUNS" "$PHOTO" "$@" <<'PY'
import statistics, subprocess, sys, tempfile
runs, photo, command = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
firsts, ends = [], []
for _ in range(runs):
    with tempfile.NamedTemporaryFile("r") as log:
        subprocess.run(["strace", "-f", "--seccomp-bpf", "-ttt", "-e", "trace=execve,openat,exit_group", "-o", log.name] + command,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        lines = log.read().splitlines()
    stamp = lambda line: float(line.split()[1])
    start = stamp(lines[0])
    firsts.append((stamp(next(l for l in lines if photo in l and "openat" in l)) - start) * 1000)
    ends.append((stamp(lines[-1]) - start) * 1000)
print(f"{statistics.median(firsts):.1f} {statistics.median(ends):.1f}")
PY
}

printf '| what | ms (median of %d) |\n|---|---|\n' "$RUNS"
printf '| C program linking libvips, doing nothing | %s |\n' "$(median "$WORK/empty")"
printf '| the same, vips_init with its modules | %s |\n' "$(median "$WORK/empty" init)"
printf '| the same, vips_init without modules | %s |\n' "$(VIPSHOME=/nonexistent median "$WORK/empty" init)"
printf '| workbench --version | %s |\n' "$(median "$BIN" --version)"
printf '| workbench validate (workload W) | %s |\n' "$(median "$BIN" validate "$ROOT/bench/workload-w.json")"
read -r first end < <(first_body "$BIN" run "$ROOT/bench/workload-w.json" "$WORK/one" --out "$WORK/out" --force -q)
printf '| workbench run (W, one photo): exec to first body | %s |\n' "$first"
printf '| workbench run (W, one photo): exec to exit | %s |\n' "$end"
