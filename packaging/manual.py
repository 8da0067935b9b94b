#!/usr/bin/env python3
"""Writes the workbench's man pages from its command definitions.

usage: packaging/manual.py WORKBENCH OUTPUT_FOLDER [--date YYYY-MM-DD]

Reads what argument-parser knows of every command (`workbench --experimental-dump-help`) and
writes one mdoc page per command, named as git names its pages: workbench.1, workbench-run.1,
workbench-plugin-new.1, … (`man workbench-run`). Hidden commands get no page.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys


def escape(text):
    """Text safe on an mdoc line: backslashes escaped, no line read as a request."""
    text = text.replace("\\", "\\e")
    return "\\&" + text if text.startswith((".", "'")) else text


def prose(text):
    """Paragraphs as .Pp blocks; indented lines (examples) kept as they are in literal blocks."""
    lines, literal = [], False
    for line in text.splitlines():
        indented = line.startswith("  ")
        if indented and not literal:
            lines.append(".Bd -literal -offset indent")
            literal = True
        elif not indented and literal and line.strip():
            lines.append(".Ed")
            literal = False
        if not line.strip():
            if not literal:
                lines.append(".Pp")
            continue
        lines.append(escape(line[2:] if indented else line))
    if literal:
        lines.append(".Ed")
    return lines


def flag(name):
    return ("Fl -" if name["kind"] == "long" else "Fl ") + name["name"] if name["kind"] != "longWithSingleDash" else "Fl " + name["name"]


def synopsis_item(argument):
    if argument["kind"] == "positional":
        text = f"Ar {argument['valueName']}" + (" ..." if argument.get("isRepeating") else "")
    else:
        text = flag(argument["preferredName"])
        if argument["kind"] == "option":
            text += f" Ar {argument.get('valueName', 'value')}"
    return f"Op {text}" if argument.get("isOptional") else text


def page(command, path, date):
    name = " ".join(path)
    file_name = "-".join(path)
    arguments = [a for a in command.get("arguments", []) if a.get("shouldDisplay", True)]
    lines = [f".Dd {date}", f".Dt {file_name.upper()} 1", ".Os",
             ".Sh NAME", f".Nm {file_name}", f".Nd {escape(command.get('abstract', ''))}",
             ".Sh SYNOPSIS", f".Nm {name}" if len(path) > 1 else ".Nm workbench"]
    lines += [f".{synopsis_item(a)}" for a in arguments]
    subcommands = [c for c in command.get("subcommands", []) if c.get("shouldDisplay", True) and c["commandName"] != "help"]
    if subcommands:
        lines.append(".Ar subcommand")
    lines.append(".Sh DESCRIPTION")
    lines.append(escape(command.get("abstract", "")))
    if command.get("discussion"):
        lines += [".Pp"] + prose(command["discussion"])
    if arguments:
        lines += [".Sh OPTIONS", ".Bl -tag -width 6n"]
        for argument in arguments:
            if argument["kind"] == "positional":
                head = f"Ar {argument['valueName']}"
            else:
                head = " , ".join(flag(n) for n in argument.get("names", [argument["preferredName"]]))
                if argument["kind"] == "option":
                    head += f" Ar {argument.get('valueName', 'value')}"
            lines.append(f".It {head}")
            lines += prose(argument.get("abstract", ""))
            if argument.get("discussion"):
                lines += [".Pp"] + prose(argument["discussion"])
            if argument.get("defaultValue"):
                lines.append(escape(f"(default: {argument['defaultValue']})"))
            values = argument.get("allValues")
            if values:
                lines.append(escape("One of: " + ", ".join(values) + "."))
        lines.append(".El")
    if subcommands:
        lines += [".Sh SUBCOMMANDS", ".Bl -tag -width 6n"]
        for sub in subcommands:
            lines += [f".It Xr {'-'.join(path + [sub['commandName']])} 1", escape(sub.get("abstract", ""))]
        lines.append(".El")
    related = ([f"{'-'.join(path[:-1])}"] if len(path) > 1 else []) + ["-".join(path + [s["commandName"]]) for s in subcommands]
    if related:
        lines.append(".Sh SEE ALSO")
        lines += [f".Xr {r} 1{' ,' if i < len(related) - 1 else ''}" for i, r in enumerate(related)]
    return file_name + ".1", "\n".join(lines) + "\n", [(sub, path + [sub["commandName"]]) for sub in subcommands]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbench")
    parser.add_argument("output")
    parser.add_argument("--date", default=datetime.date.today().isoformat())
    arguments = parser.parse_args()
    try:
        dump = subprocess.run([arguments.workbench, "--experimental-dump-help"], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        sys.exit(f"manual.py: cannot ask {arguments.workbench} for its commands: {error}")
    date = datetime.date.fromisoformat(arguments.date).strftime("%B %-d, %Y")
    os.makedirs(arguments.output, exist_ok=True)
    pending = [(json.loads(dump)["command"], ["workbench"])]
    written = 0
    while pending:
        command, path = pending.pop(0)
        name, text, children = page(command, path, date)
        with open(os.path.join(arguments.output, name), "w") as handle:
            handle.write(text)
        written += 1
        pending += children
    print(f"Wrote {written} man pages in {arguments.output}.")


if __name__ == "__main__":
    main()
