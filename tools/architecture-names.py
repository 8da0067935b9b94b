#!/usr/bin/env python3
"""Every name docs/architecture.md mentions exists: each CamelCase word and each `code` name
(every part of a dotted one) is declared or called somewhere in the code, or names a file or
folder of the repository; every file name it gives (X.swift, x.c, x.py, …) is one. Names from
outside the code (Swift's, libvips', the project's) are listed in OUTSIDE. Prints what is
missing and exits 1.

usage: tools/architecture-names.py [ROOT]
"""
import os
import re
import sys

OUTSIDE = {"AsyncStream", "FilterWorkbench", "SIGXFSZ", "SwiftNIO", "SwiftPM", "thumbnail_image"}
root = sys.argv[1] if len(sys.argv) > 1 else "."
doc = open(os.path.join(root, "docs/architecture.md"), encoding="utf-8").read()
words = set(re.findall(r"\b([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+)\b", doc))
for code in re.findall(r"`([A-Za-z_][A-Za-z0-9_.]*)`", doc):
    words |= {part for part in code.split(".") if part}
files = set(re.findall(r"\b([A-Za-z0-9_+\-]+\.(?:swift|c|h|py|sh))\b", doc))

declared, paths = set(), set()
for top in ["Sources", "Tests", "Fuzz", "bench", "tools", "packaging", "Plugins", "Benchmarks", "Presets", "examples", "docs"]:
    for folder, dirs, names in os.walk(os.path.join(root, top)):
        paths.update(dirs)
        for name in names:
            paths.add(name)
            if not name.endswith((".swift", ".c", ".h")):
                continue
            try:
                text = open(os.path.join(folder, name), encoding="utf-8", errors="ignore").read()
            except OSError:
                continue
            declared |= set(re.findall(r"\b(?:struct|class|enum|protocol|actor|typealias|func|extension|let|var|case|init)\s+([A-Za-z_][A-Za-z0-9_]*)", text))
            declared |= set(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", text))
            declared |= set(re.findall(r"#define\s+([A-Za-z_][A-Za-z0-9_]*)", text))
stems = {os.path.splitext(p)[0] for p in paths}
missing = sorted(w for w in words if w not in declared | stems | paths | OUTSIDE)
missing += sorted(f for f in files if f not in paths)
print("\n".join(f"docs/architecture.md names {m}, which the code does not have" for m in missing) or "every name in docs/architecture.md exists")
sys.exit(1 if missing else 0)
