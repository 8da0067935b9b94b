#!/usr/bin/env bash
# Fuzzes the preset loader and the image stages with libFuzzer and prints, per target, how many
# inputs ran and what was found. Usage: bench/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#   targets: presets (JSON parser + preset loader), images (decode → thumbnail → sepia → encode),
#            graphs (presets that load are run on a small photo: any op, any parameters),
#            jpeg (the progressive JPEG decoder alone, at 1/2, 1/4, 1/8),
#            jpeg-libvips (what that decoder decodes, libjpeg must decode to the same size and pixels),
#            png (the PNG decoder alone)
# The seed corpora are Fuzz/Corpus/*, the dictionaries Fuzz/Dictionaries/*; the preset targets read
# an input as a preset, then after a line "#set" one --set override per line, in a folder holding
# presets to extend (base.json, deep.json, loop.json) and filters to include (filters.json). New
# inputs and findings go to a work folder (printed), never into the repository. A finding (crash-*, timeout-*, oom-*) replays with the normal build:
#   swift run fuzz-images FILE     (or fuzz-presets)
# and belongs in the tests as a regression case once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(presets images graphs)

# Swift's -sanitize=fuzzer links libFuzzer's own main, which SwiftPM's executables cannot use
# (it links their entry point under another name); so coverage and ASan are asked for directly,
# and libFuzzer comes without its main (the targets start it through LLVMFuzzerRunDriver).
RUNTIME=$(dirname "$(readlink -f "$(command -v swift)")")/../lib/clang
RUNTIME=$(find "$RUNTIME" -name 'libclang_rt.fuzzer_no_main-x86_64.a' | head -1)
[ -n "$RUNTIME" ] || { echo "libclang_rt.fuzzer_no_main not found in the Swift toolchain" >&2; exit 1; }
FLAGS=(--build-path .build-fuzz -c release -Xswiftc -sanitize=address
       -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table -Xswiftc -DFUZZING
       -Xlinker "$RUNTIME" -Xlinker -lstdc++)

WORK=$(mktemp -d /tmp/workbench-fuzz-XXXXXX)
printf "%-8s %10s %10s %12s %9s  %s\n" target seconds runs "runs/s" findings "corpus"
for target in "${TARGETS[@]}"; do
    swift build "${FLAGS[@]}" --product "fuzz-$target" >"$WORK/build-$target.log" 2>&1 || {
        echo "build of fuzz-$target failed, see $WORK/build-$target.log" >&2; exit 1; }
    mkdir -p "$WORK/$target/corpus" "$WORK/$target/findings"
    # jpeg-libvips starts from the jpeg seeds, and uses the jpeg dictionary.
    SEEDS=Fuzz/Corpus/$target; [ -d "$SEEDS" ] || SEEDS=Fuzz/Corpus/${target%-*}
    cp "$SEEDS"/* "$WORK/$target/corpus/"
    # Leaks are not findings here: libvips keeps caches and type tables for the process's life,
    # and runs still in flight when the fuzzer exits hold their buffers (also at exit: ASAN_OPTIONS).
    # A dictionary of the format's words, where the target has one (Fuzz/Dictionaries).
    DICT=(); for name in "$target" "${target%-*}"; do [ -f "Fuzz/Dictionaries/$name.dict" ] && { DICT=(-dict="Fuzz/Dictionaries/$name.dict"); break; }; done
    ASAN_OPTIONS=detect_leaks=0 .build-fuzz/release/fuzz-"$target" "$WORK/$target/corpus" "${DICT[@]}" -max_total_time="$SECONDS_PER_TARGET" \
        -max_len=65536 -timeout=20 -rss_limit_mb=4096 -detect_leaks=0 -print_final_stats=1 \
        -artifact_prefix="$WORK/$target/findings/" >"$WORK/$target/log" 2>&1 || true
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$WORK/$target/log" | tail -1 | grep -o '[0-9]*$' || echo 0)
    findings=$(find "$WORK/$target/findings" -type f | wc -l)
    corpus=$(find "$WORK/$target/corpus" -type f | wc -l)
    rate=$(awk "BEGIN { printf \"%.0f\", ${runs:-0} / $SECONDS_PER_TARGET }")
    printf "%-8s %10s %10s %12s %9s  %s\n" "$target" "$SECONDS_PER_TARGET" "${runs:-0}" "$rate" "$findings" "$corpus inputs"
    for finding in "$WORK/$target/findings"/*; do [ -e "$finding" ] && echo "  finding: $finding"; done
done
echo "logs, corpora and findings: $WORK"
