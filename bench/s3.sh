#!/usr/bin/env bash
# Catalogues in a bucket: requests per item and items/s, beside the same run on local files.
#
# usage: bench/s3.sh [N]          (default 2000 items)
#   S3_DIR=dir   where local inputs and outputs go (default /tmp/workbench-bucket-bench)
#
# The S3 server is the tests' (Tests/Support/s3_server.py: moto on 127.0.0.1, signatures
# checked, behind a proxy that counts requests): pip install 'moto[server]'. It is a Python
# program answering one request at a time per thread, so its own cost dominates the bucket
# runs' wall time — the ratio to local files says what this server costs, not what S3 would.
# What carries over to any server are the request counts.
#
# Runs, each timed: N small JPEGs (128 px, distinct bytes) in a bucket → thumbnail 64 → a bucket;
# a rerun with nothing changed; a rerun after 10 objects were replaced; the same N from and to a
# local folder; a rerun after one output object was deleted. Prints requests by kind for each
# bucket run, in all and (in brackets) per item.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-2000}
D=${S3_DIR:-/tmp/workbench-bucket-bench}
. "$ROOT/bench/lib.sh"
needs "libvips-tools time python3 bc" vips /usr/bin/time python3 bc
python3 -c 'import moto' 2>/dev/null || { echo "needs moto: python3 -m pip install 'moto[server]'" >&2; exit 2; }
release_workbench
rm -rf "$D"; mkdir -p "$D/in" "$D/out"
vips thumbnail "$ROOT/Tests/Support/Photos/camera-cups.jpg" "$D/base.jpg[Q=85,strip]" 128
python3 - "$D/base.jpg" "$D/in" "$N" <<'PY'
import sys
base, out, n = open(sys.argv[1], "rb").read(), sys.argv[2], int(sys.argv[3])
for i in range(n):
    # A comment segment after SOI: distinct bytes, the same picture.
    text = b"item %d" % i
    open(f"{out}/p{i:06d}.jpg", "wb").write(base[:2] + b"\xff\xfe" + (len(text) + 2).to_bytes(2, "big") + text + base[2:])
PY

# The server reads commands on one pipe and answers on another; fds 3 and 4 reach it from
# this shell and its subshells alike (a coproc's would not).
rm -f "$D/to-server" "$D/from-server"; mkfifo "$D/to-server" "$D/from-server"
python3 "$ROOT/Tests/Support/s3_server.py" <"$D/to-server" >"$D/from-server" 2>/dev/null &
exec 3>"$D/to-server" 4<"$D/from-server"
read -r hello <&4
port=$(echo "$hello" | python3 -c 'import json,sys; print(json.load(sys.stdin)["port"])')
key=$(echo "$hello" | python3 -c 'import json,sys; print(json.load(sys.stdin)["accessKey"])')
secret=$(echo "$hello" | python3 -c 'import json,sys; print(json.load(sys.stdin)["secret"])')
ask() { echo "$1" >&3; read -r answer <&4; echo "$answer"; }
ask '{"cmd": "bucket", "name": "bench"}' >/dev/null
for f in "$D"/in/*.jpg; do printf '{"cmd": "put", "bucket": "bench", "key": "in/%s", "file": "%s"}\n' "$(basename "$f")" "$f"; done > "$D/puts"
while read -r line; do ask "$line" >/dev/null; done < "$D/puts"
export AWS_ENDPOINT_URL_S3=http://127.0.0.1:$port AWS_ACCESS_KEY_ID=$key AWS_SECRET_ACCESS_KEY=$secret AWS_REGION=us-east-1
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_WEB_IDENTITY_TOKEN_FILE

graph='"graph": [ { "id": "f", "op": "download" }, { "id": "d", "op": "decode" },
  { "id": "t", "op": "thumbnail", "width": 64 }, { "id": "e", "op": "encode", "format": "jpeg", "Q": 80 },
  { "id": "w", "op": "write", "path": "{name}.jpg" } ]'
echo "{ \"version\": 1, \"inputs\": { \"s3\": \"s3://bench/in/\" }, \"queues\": { \"net\": { \"concurrency\": 8 }, \"disk\": { \"concurrency\": 8 } }, $graph }" > "$D/bucket.json"
echo "{ \"version\": 1, \"inputs\": { \"glob\": \"in/*.jpg\" }, $graph }" > "$D/local.json"

timed() { /usr/bin/time -f "%e" -o "$D/time" "$@" >"$D/said" 2>"$D/err" || { tail -5 "$D/said" "$D/err" >&2; exit 1; }; cat "$D/time"; }
requests() {
  ask '{"cmd": "stats"}' | python3 -c '
import json, sys
counts, n = json.load(sys.stdin), int(sys.argv[1])
print(", ".join(f"{kind} {count} ({count / n:.3f})" for kind, count in sorted(counts.items())) or "none")' "$N"
  ask '{"cmd": "reset"}' >/dev/null
}

printf '| run (%d items) | wall s | items/s | requests in all (per item) |\n|---|---|---|---|\n' "$N"
ask '{"cmd": "reset"}' >/dev/null
t=$(timed "$WORKBENCH" run "$D/bucket.json" --out s3://bench/out/ --progress none)
printf '| bucket → bucket, first | %s | %.0f | %s |\n' "$t" "$(echo "$N / $t" | bc -l)" "$(requests)"
t=$(timed "$WORKBENCH" run "$D/bucket.json" --out s3://bench/out/ --progress none)
printf '| bucket → bucket, nothing changed | %s | %.0f | %s |\n' "$t" "$(echo "$N / $t" | bc -l)" "$(requests)"
for i in 0 1 2 3 4 5 6 7 8 9; do ask "{\"cmd\": \"put\", \"bucket\": \"bench\", \"key\": \"in/p00000$i.jpg\", \"file\": \"$D/in/p000010.jpg\"}" >/dev/null; done
requests >/dev/null
t=$(timed "$WORKBENCH" run "$D/bucket.json" --out s3://bench/out/ --progress none)
printf '| bucket → bucket, 10 replaced | %s | %.0f | %s |\n' "$t" "$(echo "$N / $t" | bc -l)" "$(requests)"
ask '{"cmd": "delete", "bucket": "bench", "key": "out/p000100.jpg"}' >/dev/null
requests >/dev/null
t=$(timed "$WORKBENCH" run "$D/bucket.json" --out s3://bench/out/ --progress none)
printf '| bucket → bucket, 1 output deleted | %s | %.0f | %s |\n' "$t" "$(echo "$N / $t" | bc -l)" "$(requests)"
local_t=$(timed "$WORKBENCH" run "$D/local.json" --out "$D/out" --progress none)
printf '| folder → folder, first | %s | %.0f | — |\n' "$local_t" "$(echo "$N / $local_t" | bc -l)"
exec 3>&- 4<&-
