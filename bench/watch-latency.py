#!/usr/bin/env python3
"""Times a running `workbench watch` from the outside, as an uploader sees it.

usage: watch-latency.py latency INBOX OUT PHOTO... 
         each photo renamed into INBOX one at a time (after the last one's output appeared):
         prints the seconds from each rename to its output, one per line
       watch-latency.py burst INBOX OUT STAGING
         every file of STAGING renamed into INBOX at once: prints the seconds from the first
         rename to the last output
       watch-latency.py idle PID SECONDS
         prints the CPU seconds PID used over SECONDS, and its resident memory in MiB
"""
import os
import sys
import time


def wait_for(path, limit=120.0):
    start = time.monotonic()
    while not os.path.exists(path):
        if time.monotonic() - start > limit:
            sys.exit(f"no {path} after {limit} s")
        time.sleep(0.0005)


def latency(inbox, out, photos):
    for n, photo in enumerate(photos):
        name = f"lat-{n}.jpg"
        staged = os.path.join(inbox, "." + name)
        with open(photo, "rb") as source, open(staged, "wb") as copy:
            copy.write(source.read())
        start = time.monotonic()
        os.rename(staged, os.path.join(inbox, name))
        wait_for(os.path.join(out, name))
        print(f"{time.monotonic() - start:.4f}", flush=True)


def burst(inbox, out, staging):
    names = sorted(os.listdir(staging))
    start = time.monotonic()
    for name in names:
        os.rename(os.path.join(staging, name), os.path.join(inbox, name))
    for name in names:
        wait_for(os.path.join(out, name))
    print(f"{time.monotonic() - start:.4f}")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle(pid, seconds):
    before = cpu_seconds(pid)
    time.sleep(seconds)
    used = cpu_seconds(pid) - before
    with open(f"/proc/{pid}/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    print(f"{used:.3f} {rss / 1024:.1f}")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "latency":
        latency(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif mode == "burst":
        burst(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "idle":
        idle(int(sys.argv[2]), float(sys.argv[3]))
    else:
        sys.exit(__doc__)
