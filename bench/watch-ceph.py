#!/usr/bin/env python3
"""`workbench watch` on a bucket of a one-node Ceph cluster, its persistent topic pushing to it.

usage: watch-ceph.py WORKBENCH PHOTO_DIR [KILLS]

Starts the cluster (Tests/Support/ceph_cluster.sh, Debian's radosgw ceph-mon ceph-mgr ceph-osd),
a bucket and a persistent topic pushing to a watch on a fixed port, then prints:
  latency  each photo PUT one at a time: seconds from the PUT's answer to its output, p50 and
           p90, beside the item's own time (its "ok … s" line) and the difference;
  kills    KILLS rounds (default 20): a burst of photos PUT while the watch is killed with SIGKILL
           part way and started again; once every restart has settled, how many photos have no
           output (the target is 0).
Needs boto3 (it comes with moto).
"""
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import boto3

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRESET = {"version": 1, "graph": [{"op": "download"}, {"op": "decode"}, {"op": "thumbnail", "width": 256},
                                  {"op": "encode", "format": "jpeg", "Q": 80}, {"op": "write", "path": "{name}.jpg"}]}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, limit, what):
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > limit:
            sys.exit(f"no {what} after {limit} s")
        time.sleep(0.002)


class Watch:
    def __init__(self, workbench, preset, bucket, out, port, env, log):
        self.args = [workbench, "watch", preset, f"s3://{bucket}/in/", "--out", out, "--listen", f"127.0.0.1:{port}"]
        self.env, self.log = env, log
        self.process = None

    def start(self):
        log = open(self.log, "a")
        self.process = subprocess.Popen(self.args, env=self.env, stdout=log, stderr=log)
        wait_for(lambda: "/metrics." in open(self.log).read(), 120, "listener")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait()


def main():
    workbench, photos = sys.argv[1], sys.argv[2]
    kills = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    corpus = sorted(os.path.join(photos, f) for f in os.listdir(photos) if f.lower().endswith((".jpg", ".jpeg")))
    work = tempfile.mkdtemp()
    cluster = subprocess.Popen(["sh", os.path.join(ROOT, "Tests/Support/ceph_cluster.sh"), os.path.join(work, "ceph")],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    hello = json.loads(cluster.stdout.readline())
    endpoint = f"http://127.0.0.1:{hello['port']}"
    keys = dict(aws_access_key_id=hello["accessKey"], aws_secret_access_key=hello["secret"], region_name="us-east-1", endpoint_url=endpoint)
    s3, sns = boto3.client("s3", **keys), boto3.client("sns", **keys)
    bucket = f"watch-bench-{random.randrange(1 << 30)}"
    s3.create_bucket(Bucket=bucket)
    port = free_port()
    topic = sns.create_topic(Name=bucket, Attributes={"push-endpoint": f"http://127.0.0.1:{port}/", "persistent": "true"})["TopicArn"]
    s3.put_bucket_notification_configuration(Bucket=bucket, NotificationConfiguration={"TopicConfigurations": [{
        "Id": bucket, "TopicArn": topic, "Events": ["s3:ObjectCreated:*"],
        "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "in/"}]}}}]})
    preset = os.path.join(work, "watch.json")
    with open(preset, "w") as f:
        json.dump(PRESET, f)
    out = os.path.join(work, "out")
    env = dict(os.environ, AWS_ENDPOINT_URL_S3=endpoint, AWS_ACCESS_KEY_ID=hello["accessKey"], AWS_SECRET_ACCESS_KEY=hello["secret"],
               AWS_REGION="us-east-1")
    log = os.path.join(work, "watch.log")
    watch = Watch(workbench, preset, bucket, out, port, env, log)
    watch.start()
    data = [open(p, "rb").read() for p in corpus]

    # The topic's queue is found by the gateway's scan (up to 30 s): a first photo warms it.
    s3.put_object(Bucket=bucket, Key="in/warm.jpg", Body=data[0])
    wait_for(lambda: os.path.exists(os.path.join(out, "warm.jpg")), 120, "first event")

    times = []
    for n, body in enumerate(data):
        s3.put_object(Bucket=bucket, Key=f"in/lat-{n}.jpg", Body=body)
        start = time.monotonic()
        wait_for(lambda: os.path.exists(os.path.join(out, f"lat-{n}.jpg")), 120, f"lat-{n}.jpg")
        times.append(time.monotonic() - start)
    items = {}
    for line in open(log):
        if line.startswith("ok      lat-"):
            name = line.split()[1]
            items[int(name.split("-")[1])] = float(line.rsplit(", ", 1)[1].split()[0])
    added = [times[n] - items.get(n, 0) for n in range(len(times))]
    q = lambda v, p: sorted(v)[min(len(v) - 1, int(len(v) * p))]
    print(f"latency ({len(times)} photos, one at a time): PUT answered → output p50 {statistics.median(times):.3f} s, "
          f"p90 {q(times, 0.9):.3f} s; the item itself p50 {statistics.median(items.values()):.3f} s; "
          f"watching adds p50 {statistics.median(added):.3f} s, p90 {q(added, 0.9):.3f} s", flush=True)

    # SIGKILLs during bursts.
    put = 0
    for round in range(kills):
        for k in range(10):
            s3.put_object(Bucket=bucket, Key=f"in/kill-{put}.jpg", Body=data[put % len(data)])
            put += 1
            if k == random.randrange(10):
                watch.kill()
                watch.start()
    # Settled: the last start listed everything put before it; the rest came as events.
    deadline = time.monotonic() + 300
    missing = [n for n in range(put) if not os.path.exists(os.path.join(out, f"kill-{n}.jpg"))]
    while missing and time.monotonic() < deadline:
        time.sleep(0.5)
        missing = [n for n in range(put) if not os.path.exists(os.path.join(out, f"kill-{n}.jpg"))]
    stalled = len(missing)
    if missing:
        # A queue stalled by the endpoint's downtime (Ceph 16) holds its events: a restart lists.
        watch.stop()
        watch.start()
        deadline = time.monotonic() + 300
        while missing and time.monotonic() < deadline:
            time.sleep(0.5)
            missing = [n for n in range(put) if not os.path.exists(os.path.join(out, f"kill-{n}.jpg"))]
    watch.stop()
    print(f"kills ({kills} SIGKILLs during bursts, {put} photos): {stalled} without their output from the events and listings "
          f"of the restarts; {len(missing)} after one more start (its listing)")
    cluster.stdin.close()
    cluster.wait()


if __name__ == "__main__":
    main()
