"""Scores pairs of images with the `ssimulacra2` PyPI package, the reference our kernel is
checked against. Reads "original<TAB>distorted[<TAB>anything]" lines from the file named by argv[1] and
prints one score a line, in order."""
import sys

from ssimulacra2 import compute_ssimulacra2

with open(sys.argv[1]) as pairs:
    for line in pairs:
        original, distorted = line.rstrip("\n").split("\t")[:2]
        print(f"{compute_ssimulacra2(original, distorted):.6f}", flush=True)
