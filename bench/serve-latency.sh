#!/usr/bin/env bash
# How fast the live workbench follows a control: from a change of a value on the page to the
# last of six visible cards showing its preview, against the same change made by saving the
# preset file (the cards then show full-size files made again). A filter's control (sepia) runs
# from the kept thumbnails; the encoder's quality from the kept filtered images.
#
# usage: bench/serve-latency.sh PHOTO_DIR [CHANGES] [PREVIEW_SIZE...]
#   PHOTO_DIR     photos (the reference corpus: ../shared/bench/make-corpus.sh DIR); the first 6
#   CHANGES       changes timed per row (default 15)
#   PREVIEW_SIZE  --preview-size values to time (default: 512 1024)
# The chain is W-like: thumbnail 512 → sepia → levels → JPEG q85. Prints median and p95 ms.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PHOTOS=$(cd "${1:?usage: bench/serve-latency.sh PHOTO_DIR [CHANGES] [PREVIEW_SIZE...]}" && pwd)
CHANGES=${2:-15}
shift $(( $# >= 2 ? 2 : 1 ))
SIZES=${*:-512 1024}
. "$ROOT/bench/lib.sh"
needs python3 python3
release_workbench
WORK=$(mktemp -d)
trap 'pkill -f "workbench serve $WORK" 2>/dev/null || true; rm -rf "$WORK"' EXIT
mkdir -p "$WORK/photos"
ls "$PHOTOS"/*.jpg | head -n 6 | while read -r photo; do cp "$photo" "$WORK/photos/"; done
cat > "$WORK/preset.json" <<'JSON'
{ "version": 1, "inputs": { "glob": "photos/*.jpg" }, "output": "out",
  "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
             { "id": "small", "op": "thumbnail", "width": 512 },
             { "id": "tone", "op": "sepia", "intensity": 0.5 },
             { "id": "levels", "op": "levels", "inBlack": 10, "inWhite": 245 },
             { "id": "jpeg", "op": "encode", "format": "jpeg", "Q": 85 },
             { "id": "save", "op": "write", "path": "{name}.jpg" } ] }
JSON
printf '| what | median ms | p95 ms |\n|---|---|---|\n'
for size in $SIZES; do
  "$WORKBENCH" serve "$WORK/preset.json" --port 0 --preview-size "$size" > "$WORK/serve.log" 2>&1 &
  for _ in $(seq 100); do grep -q token= "$WORK/serve.log" && break; sleep 0.1; done
  URL=$(grep -o 'http://[^ ]*token=[0-9a-f]*' "$WORK/serve.log")
  python3 - "$URL" "$CHANGES" "$size" "$WORK/preset.json" <<'PY'
import json, statistics, sys, threading, time, urllib.request
url, changes, size, preset = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
base, token = url.split("/?token=")
def call(path, body=None):
    request = urllib.request.Request(f"{base}/{path}?token={token}", data=None if body is None else json.dumps(body).encode(), method="GET" if body is None else "POST")
    return urllib.request.urlopen(request).read()
previews, rows = [], {}
def listen():
    name = None
    for line in urllib.request.urlopen(f"{base}/events?token={token}"):
        line = line.decode().strip()
        if line.startswith("event:"): name = line[6:].strip()
        elif line.startswith("data:"):
            data = json.loads(line[5:])
            if name == "preview": previews.append((time.perf_counter(), data))
            elif name in ("rows", "snapshot"):
                for row in (data if name == "rows" else data["rows"]): rows[row["index"]] = (time.perf_counter(), row["state"])
threading.Thread(target=listen, daemon=True).start()
time.sleep(0.5)
call("viewport", {"visible": list(range(6))})
def wait(condition, limit=60):
    start = time.perf_counter()
    while not condition():
        if time.perf_counter() - start > limit: raise SystemExit("timed out")
        time.sleep(0.001)
wait(lambda: len(rows) == 6 and all(s in ("done", "upToDate") for _, s in rows.values()))
def quantiles(samples):
    samples = sorted(samples)
    return statistics.median(samples) * 1000, samples[min(len(samples) - 1, int(round(0.95 * (len(samples) - 1))))] * 1000
page = []
for i in range(changes):
    value = round(0.3 + 0.04 * (i % 10) + 0.001 * i, 3)
    previews.clear()
    start = time.perf_counter()
    call("parameter", {"node": "tone", "key": "intensity", "value": str(value)})
    generation = json.loads(call("draft"))["generation"]
    wait(lambda: len({p["index"] for _, p in previews if p["generation"] == generation}) == 6)
    page.append(max(t for t, p in previews if p["generation"] == generation) - start)
quality = []
for i in range(changes):
    previews.clear()
    start = time.perf_counter()
    call("parameter", {"node": "jpeg", "key": "Q", "value": str(60 + i)})
    generation = json.loads(call("draft"))["generation"]
    wait(lambda: len({p["index"] for _, p in previews if p["generation"] == generation}) == 6)
    quality.append(max(t for t, p in previews if p["generation"] == generation) - start)
call("revert", {})
saved = []
text = open(preset).read()
for i in range(changes):
    value = round(0.3 + 0.04 * (i % 10) + 0.001 * i, 3)
    start = time.perf_counter()
    open(preset, "w").write(text.replace('"intensity": 0.5', f'"intensity": {value}'))
    wait(lambda: all(t > start and s == "done" for t, s in rows.values()))
    saved.append(time.perf_counter() - start)
open(preset, "w").write(text)
print("| a filter's control on the page (sepia), %s px previews, 6 cards | %.0f | %.0f |" % ((size,) + quantiles(page)))
print("| the encoder's quality on the page (filters kept), %s px previews | %.0f | %.0f |" % ((size,) + quantiles(quality)))
print("| the same change saved in the file, full-size files, 6 cards | %.0f | %.0f |" % quantiles(saved))
PY
  pkill -f "workbench serve $WORK" || true
  sleep 0.5
done
