#!/usr/bin/env python3
"""Which folders of a Swift module use which: the layering check of docs/architecture.md.

usage: tools/folder-dependencies.py [MODULE_FOLDER] [--why A B]

For every top-level folder of the module (files at its root count as the folder "."), finds the
types, top-level functions and constants each declares, then which of them each other folder's
code names (comments and string literals left out). Prints every folder's dependencies and
every pair of folders that depend on each other both ways, and the layers they form; exits 1
if there is such a pair or any other cycle.
`--why A B` lists the names folder A takes from folder B, and where.

A textual check, not the compiler's: a name declared twice counts for both folders. Members an
extension adds (`extension StageInputs { func image(...) }`) count for the extension's folder
when no other folder declares a member or a type of that name, so a method added to another
folder's type is seen where it is used (`inputs.image(context)`).
"""
import os
import re
import sys
from collections import defaultdict

DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|private|fileprivate|package|open|final|indirect|nonisolated|static)\s+)*"
    r"(?:struct|class|enum|protocol|actor|typealias|func|let|var)\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)
IDENTIFIER = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
MEMBER = re.compile(
    r"^[ \t]+(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|private|fileprivate|package|open|final|static|class|mutating|nonmutating|override|nonisolated|indirect)\s+)*"
    r"(?:func|var|let|case|struct|class|enum|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)
EXTENSION = re.compile(r"^(?:(?:public|internal|private|fileprivate|package)\s+)?extension\s+[^{]*\{", re.M)
MEMBER_USE = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)\b")


def extension_bodies(text):
    """The text inside each top-level extension's braces."""
    for match in EXTENSION.finditer(text):
        depth, at = 1, match.end()
        while depth and at < len(text):
            depth += {"{": 1, "}": -1}.get(text[at], 0)
            at += 1
        yield text[match.end():at - 1]


def without_comments_and_strings(text):
    text = re.sub(r'"""[\s\S]*?"""', '""', text)
    text = re.sub(r"/\*[\s\S]*?\*/", "", text)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


def folders(module):
    found = defaultdict(list)
    for directory, _, names in os.walk(module):
        for name in names:
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                relative = os.path.relpath(path, module)
                found[relative.split(os.sep)[0] if os.sep in relative else "."].append(path)
    return found


def main():
    arguments = sys.argv[1:]
    why = None
    if "--why" in arguments:
        at = arguments.index("--why")
        why = arguments[at + 1:at + 3]
        arguments = arguments[:at] + arguments[at + 3:]
    module = arguments[0] if arguments else "Sources/WorkbenchCore"
    files = folders(module)
    texts = {path: without_comments_and_strings(open(path, encoding="utf-8").read()) for paths in files.values() for path in paths}
    declared = defaultdict(set)  # name → folders
    for folder, paths in files.items():
        for path in paths:
            # Top level only: declarations that start a line without indentation.
            for match in DECLARATION.finditer(texts[path]):
                if texts[path][match.start():match.start() + 1].isspace():
                    continue
                declared[match.group(1)].add(folder)
    # Members: every folder that declares a member of a name, and those extensions add.
    members, added = defaultdict(set), defaultdict(set)
    for folder, paths in files.items():
        for path in paths:
            for match in MEMBER.finditer(texts[path]):
                members[match.group(1)].add(folder)
            for body in extension_bodies(texts[path]):
                for match in MEMBER.finditer(body):
                    added[match.group(1)].add(folder)
    extension_members = {name: next(iter(owners)) for name, owners in added.items()
                         if len(owners) == 1 and members[name] == owners and name not in declared}
    uses = defaultdict(lambda: defaultdict(set))  # folder → folder → names
    where = defaultdict(list)
    for folder, paths in files.items():
        for path in paths:
            for name in set(IDENTIFIER.findall(texts[path])):
                for other in declared.get(name, ()):
                    if other != folder:
                        uses[folder][other].add(name)
                        where[(folder, other)].append((os.path.relpath(path, module), name))
            for name in set(MEMBER_USE.findall(texts[path])):
                other = extension_members.get(name)
                if other is not None and other != folder:
                    uses[folder][other].add("." + name)
                    where[(folder, other)].append((os.path.relpath(path, module), "." + name))
    if why:
        for path, name in sorted(where.get(tuple(why), [])):
            print(f"{path}: {name}")
        return
    for folder in sorted(files):
        print(f"{folder} → {', '.join(sorted(uses[folder])) or 'nothing'}")
    pairs = sorted({tuple(sorted((a, b))) for a in uses for b in uses[a] if a in uses.get(b, {})})
    print(f"\n{len(pairs)} pair{'s' if len(pairs) != 1 else ''} of folders depending on each other both ways"
          + (":" if pairs else "."))
    for a, b in pairs:
        print(f"  {a} ↔ {b}   ({a} takes {', '.join(sorted(uses[a][b]))}; {b} takes {', '.join(sorted(uses[b][a]))})")
    # Layers: a folder sits one above the highest folder it uses; a cycle has no layer.
    layer, visiting = {}, set()

    def place(folder):
        if folder in layer:
            return layer[folder]
        if folder in visiting:
            raise ValueError(folder)
        visiting.add(folder)
        layer[folder] = 1 + max((place(other) for other in uses[folder]), default=-1)
        visiting.discard(folder)
        return layer[folder]
    try:
        for folder in files:
            place(folder)
    except ValueError as cycle:
        print(f"The folders form a cycle through {cycle}: no layers.")
        sys.exit(1)
    print("Layers, bottom first:")
    for level in range(max(layer.values()) + 1):
        print(f"  {level}: {', '.join(sorted(f for f in layer if layer[f] == level))}")
    sys.exit(1 if pairs else 0)


if __name__ == "__main__":
    main()
