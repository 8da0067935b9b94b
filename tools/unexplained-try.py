#!/usr/bin/env python3
"""Every `try?` in the Swift sources under DIR (default: Sources) says why failing quietly is
right: a comment on its line, or on the line above its statement (a condition continued over
lines ending in a comma counts as one statement). Prints those that do not and exits 1.

usage: tools/unexplained-try.py [DIR]
"""
import os
import sys


def code(line):
    return line.split("//")[0]


def unexplained(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        if "try?" not in code(line) or "//" in line:
            continue
        j = i - 1
        while j >= 0 and code(lines[j]).rstrip().endswith(",") and "//" not in lines[j]:
            j -= 1
        if j < 0 or "//" not in lines[j]:
            yield i + 1, line.strip()


root = sys.argv[1] if len(sys.argv) > 1 else "Sources"
found = []
for folder, _, names in sorted(os.walk(root)):
    for name in sorted(names):
        if name.endswith(".swift"):
            path = os.path.join(folder, name)
            found += [f"{path}:{n}: {text}" for n, text in unexplained(path)]
print("\n".join(found) if found else "every try? says why")
sys.exit(1 if found else 0)
