"""bench/quality-target.sh's scoring side, with the `ssimulacra2` PyPI package and pyvips:

  refs PHOTOS WORK           libvips' thumbnail of each photo at 960 px, as WORK/ref/NAME.png
  baseline WORK FORMAT GOAL  the honest fixed Q: for each photo the lowest Q whose file
                             (libvips' own saver, from the thumbnail) scores GOAL, by bisection;
                             prints the highest of those (every photo reaches GOAL at it)
  score WORK DIR FORMAT      each DIR/NAME.FORMAT against its thumbnail: "name score bytes" lines
  speed WORK                 seconds the PyPI package takes to score one pair (median of 3)
"""
import os
import statistics
import sys
import time
from multiprocessing import Pool

import pyvips
from ssimulacra2 import compute_ssimulacra2


def refs(photos, work):
    os.makedirs(os.path.join(work, "ref"), exist_ok=True)
    for name in sorted(os.listdir(photos)):
        if name.endswith(".jpg"):
            stem = os.path.splitext(name)[0]
            pyvips.Image.thumbnail(os.path.join(photos, name), 960, height=100000, size="down").write_to_file(
                os.path.join(work, "ref", stem + ".png"))


def stems(work):
    return sorted(os.path.splitext(n)[0] for n in os.listdir(os.path.join(work, "ref")) if n.endswith(".png"))


def scored(work, stem, fmt, q):
    """The score and bytes of the thumbnail saved by libvips at Q, decoded again."""
    ref = os.path.join(work, "ref", stem + ".png")
    path = os.path.join(work, "base", f"{stem}-{q}.{fmt}")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pyvips.Image.new_from_file(ref).write_to_file(path, Q=q)
    png = path + ".png"
    pyvips.Image.new_from_file(path).write_to_file(png)
    return compute_ssimulacra2(ref, png), os.path.getsize(path)


def lowest_q(args):
    work, stem, fmt, goal = args
    lo, hi = 0, 100  # lo fails (or is below the range), hi is assumed to pass
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if scored(work, stem, fmt, mid)[0] >= goal:
            hi = mid
        else:
            lo = mid
    return hi


def baseline(work, fmt, goal):
    with Pool(2) as pool:
        answers = pool.map(lowest_q, [(work, s, fmt, goal) for s in stems(work)])
    print(max(answers))


def score_one(args):
    work, folder, stem, fmt = args
    path = os.path.join(folder, f"{stem}.{fmt}")
    png = path + ".png"
    pyvips.Image.new_from_file(path).write_to_file(png)
    return stem, compute_ssimulacra2(os.path.join(work, "ref", stem + ".png"), png), os.path.getsize(path)


def score(work, folder, fmt):
    with Pool(2) as pool:
        for stem, s, b in pool.map(score_one, [(work, folder, s, fmt) for s in stems(work)]):
            print(stem, f"{s:.3f}", b)


def speed(work):
    stem = stems(work)[0]
    ref = os.path.join(work, "ref", stem + ".png")
    path = os.path.join(work, "speed.jpg")
    pyvips.Image.new_from_file(ref).write_to_file(path, Q=60)
    pyvips.Image.new_from_file(path).write_to_file(path + ".png")
    times = []
    for _ in range(3):
        start = time.perf_counter()
        compute_ssimulacra2(ref, path + ".png")
        times.append(time.perf_counter() - start)
    print(f"{statistics.median(times):.4f}")


if __name__ == "__main__":
    command, rest = sys.argv[1], sys.argv[2:]
    if command == "refs":
        refs(*rest)
    elif command == "baseline":
        baseline(rest[0], rest[1], float(rest[2]))
    elif command == "score":
        score(*rest)
    elif command == "speed":
        speed(*rest)
