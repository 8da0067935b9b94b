#!/usr/bin/env python3
"""An S3 server for FilterWorkbench's tests: moto in server mode on 127.0.0.1 with request
signing checked (a wrong secret is refused), behind a small proxy that counts requests and
injects faults.

usage: s3_server.py                      moto, started here
       s3_server.py PORT KEY SECRET      another server on 127.0.0.1:PORT (ceph_cluster.sh's gateway)
       s3_server.py PORT KEY SECRET sts  the same, with STS on: a role for the issuer's tokens

Prints one JSON line, {"port": P, "accessKey": K, "secret": S, "role": ARN}, then reads commands, one JSON
object per line on stdin, and answers each with one JSON line on stdout. Serves until stdin
closes, so it never outlives the test that started it.

Commands:
  {"cmd": "bucket", "name": B}                          create a bucket
  {"cmd": "put", "bucket": B, "key": K, "file": F}      upload a file
  {"cmd": "putmany", "bucket": B, "prefix": P, "count": N, "file": F, "suffix": ".jpg"}
                                                        N copies, keys P00000.jpg …
  {"cmd": "stats"}                                      requests by kind: "GET object", "HEAD object",
                                                        "PUT object", "LIST", "STS", …
  {"cmd": "most"}                                       the most requests of each kind at once
  {"cmd": "reset"}                                      counts back to zero
  {"cmd": "fault", "kind": "GET object", "status": 503, "code": "SlowDown", "count": 2,
   "retryAfter": 1}                                     the next `count` requests of that kind get
                                                        this answer instead of reaching moto
  {"cmd": "fault", "kind": "GET object", "reset": true, "count": 1}
                                                        the connection is closed mid-body (before
                                                        the answer when it has no body)
  {"cmd": "fault", "kind": "PUT part", "delay": 5, "count": 9}
                                                        answered normally, 5 seconds late
  {"cmd": "fault", "kind": "GET object", "hold": true, "skip": 10, "count": 99}
                                                        after 10 requests, the next 99 are held
                                                        until {"cmd": "release"}
  {"cmd": "held"}                                       how many requests are held now
  {"cmd": "waitheld", "count": N}                       answers once N requests are held (at most 10 minutes)
  {"cmd": "answered"}                                   requests answered, by kind
  {"cmd": "waitanswered", "kind": K, "count": N}        answers once N requests of kind K were answered
  {"cmd": "waitput", "bucket": B, "prefix": P, "except": X}
                                                        answers once an object under P (its key not
                                                        containing X) was put
  {"cmd": "list", "bucket": B, "prefix": P}             keys and sizes
  {"cmd": "delete", "bucket": B, "key": K}              delete an object
  {"cmd": "policy", "bucket": B, "policy": {...}}       set a bucket policy (enforced by Ceph, not moto)
  {"cmd": "token"}                                      a web identity token (JWT) for the "role" the
                                                        first line named (checked by Ceph, not moto)
  {"cmd": "get", "bucket": B, "key": K}                 an object's bytes as text (Latin-1) and its size
  {"cmd": "head", "bucket": B, "key": K}                an object's ContentType, CacheControl, Metadata, …
  {"cmd": "uploads", "bucket": B}                       multipart uploads in progress
"""
import http.client
import json
import logging
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler

from oidc_issuer import Issuer
from quiet_server import Server
from urllib.parse import parse_qs, urlparse

# Signing is checked once the five set-up calls below are made (moto counts them).
os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "5"
os.environ.setdefault("MOTO_ALLOW_NONEXISTENT_REGION", "true")

import boto3  # noqa: E402
import botocore.auth  # noqa: E402
from moto.server import ThreadedMotoServer  # noqa: E402
from urllib.parse import quote, unquote  # noqa: E402


def aws_canonical_query(self, parts):
    """The canonical query as S3 makes it: every name and value decoded, then encoded again
    (RFC 3986, "/" included). moto checks signatures with botocore, handing it the query as its
    web framework decoded it, which leaves "/" bare: a correct signature over "prefix=a%2F"
    would be refused. Patched here so the server checks what AWS checks."""
    pairs = []
    for pair in parts.query.split("&"):
        if pair:
            key, _, value = pair.partition("=")
            pairs.append((quote(unquote(key), safe="-_.~"), quote(unquote(value), safe="-_.~")))
    return "&".join(f"{key}={value}" for key, value in sorted(pairs))


botocore.auth.SigV4Auth._canonical_query_string_url = aws_canonical_query

from moto.sts.responses import TokenResponse  # noqa: E402

moto_authenticate = TokenResponse._authenticate_and_authorize_normal_action


def sts_authenticate(self, resource="*"):
    """AWS does not authenticate AssumeRoleWithWebIdentity (the token is the proof); moto, with
    signatures checked, tries to and fails on the missing Authorization header."""
    if self._get_action() in ("AssumeRoleWithWebIdentity", "AssumeRoleWithSAML"):
        return None
    return moto_authenticate(self, resource)


TokenResponse._authenticate_and_authorize_normal_action = sts_authenticate

logging.getLogger("werkzeug").setLevel(logging.ERROR)
LOCK = threading.Lock()
HELD_CHANGED = threading.Condition(LOCK)  # notified when a request is held
COUNTS = {}
IN_FLIGHT = {}
MOST_IN_FLIGHT = {}
ANSWERED = {}
PUT_PATHS = []  # the paths of the PUT objects answered, for "waitput"
ISSUER = []  # the web identity tokens' issuer, for "token"
HELD = []  # threading.Event of each request held by a "hold" fault, set by "release"
FAULTS = []
MOTO_PORT = 0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kind_of(method, path, query):
    q = parse_qs(query, keep_blank_values=True)
    parts = [p for p in path.split("/") if p]
    if method == "GET" and "list-type" in q:
        return "LIST"
    if "uploads" in q:
        return "LIST uploads" if method == "GET" else "CREATE upload"
    if "uploadId" in q:
        return {"PUT": "PUT part", "POST": "COMPLETE upload", "DELETE": "ABORT upload"}.get(method, method + " upload")
    if len(parts) >= 2:
        return method + " object"
    return method + " bucket"



class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_response(self, code, message=None):
        # A request stops counting as in flight when its answer starts, not once it is written:
        # the client may send its next request as soon as it has read this one's.
        self.leave_flight()
        super().send_response(code, message)

    def leave_flight(self):
        with LOCK:
            kind = getattr(self, "flying", None)
            if kind:
                IN_FLIGHT[kind] -= 1
                self.flying = None

    def handle_any(self):
        self.kind = None
        try:
            self.serve()
        finally:
            # Counted even when the client was gone by the answer (killed while it was held).
            kind = self.kind
            self.leave_flight()
            with LOCK:
                if kind:
                    ANSWERED[kind] = ANSWERED.get(kind, 0) + 1
                    if kind == "PUT object":
                        PUT_PATHS.append(unquote(urlparse(self.path).path))
                    HELD_CHANGED.notify_all()

    def serve(self):
        url = urlparse(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        kind = "STS" if b"Action=AssumeRole" in body else kind_of(self.command, url.path, url.query)
        self.kind = kind
        with LOCK:
            COUNTS[kind] = COUNTS.get(kind, 0) + 1
            IN_FLIGHT[kind] = IN_FLIGHT.get(kind, 0) + 1
            self.flying = kind
            MOST_IN_FLIGHT[kind] = max(MOST_IN_FLIGHT.get(kind, 0), IN_FLIGHT[kind])
            fault = next((f for f in FAULTS if f["kind"] == kind and f["count"] > 0), None)
            if fault and fault.get("skip", 0) > 0:
                fault["skip"] -= 1
                fault = None
            elif fault:
                fault["count"] -= 1
            release = None
            if fault and fault.get("hold"):
                release = threading.Event()
                HELD.append(release)
                HELD_CHANGED.notify_all()
        if release:
            # Held until the test says "release"; then answered normally.
            release.wait()
            fault = None
        if fault and fault.get("delay"):
            # A slow server: the request is answered normally, late.
            time.sleep(fault["delay"])
            fault = None
        if fault and fault.get("reset"):
            # Forward, then send the headers and half the body, and close; an answer without a
            # body (a PUT's) is not sent at all.
            status, headers, data = self.forward(body)
            if not data:
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return kind
            self.send_response(status)
            for name, value in headers:
                if name.lower() not in ("transfer-encoding", "connection"):
                    self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return kind
        if fault:
            text = f"<?xml version=\"1.0\"?><Error><Code>{fault.get('code', 'InternalError')}</Code><Message>injected</Message></Error>".encode()
            self.send_response(fault["status"])
            if fault.get("retryAfter") is not None:
                self.send_header("Retry-After", str(fault["retryAfter"]))
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(text)
            return kind
        status, headers, data = self.forward(body)
        self.send_response(status)
        for name, value in headers:
            if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        return kind

    def forward(self, body):
        # The request goes on as it came, Host header included: the signature covers it.
        connection = http.client.HTTPConnection("127.0.0.1", MOTO_PORT, timeout=60)
        connection.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
        for name, value in self.headers.items():
            if name.lower() not in ("connection", "expect", "content-length"):
                connection.putheader(name, value)
        if body or self.command in ("PUT", "POST"):
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body if body else None)
        answer = connection.getresponse()
        data = answer.read()
        connection.close()
        return answer.status, answer.getheaders(), data

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_any


def main():
    global MOTO_PORT
    moto = None
    issuer = Issuer()
    if len(sys.argv) >= 4:
        # Another S3 server (Ceph's RADOS Gateway, ceph_cluster.sh): its port and a user's keys;
        # "sts": the gateway has STS on, and web identity tokens get a role there.
        MOTO_PORT = int(sys.argv[1])
        endpoint = f"http://127.0.0.1:{MOTO_PORT}"
        key = {"AccessKeyId": sys.argv[2], "SecretAccessKey": sys.argv[3]}
        role = ceph_role(endpoint, key, issuer) if sys.argv[4:] == ["sts"] else ""
    else:
        MOTO_PORT = free_port()
        moto = ThreadedMotoServer(ip_address="127.0.0.1", port=MOTO_PORT, verbose=False)
        moto.start()
        endpoint = f"http://127.0.0.1:{MOTO_PORT}"
        iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1",
                           aws_access_key_id="setup", aws_secret_access_key="setup")
        iam.create_user(UserName="workbench")
        key = iam.create_access_key(UserName="workbench")["AccessKey"]
        policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
        iam.put_user_policy(UserName="workbench", PolicyName="all", PolicyDocument=json.dumps(policy))
        # The role a pod's web identity token is exchanged for.
        trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Federated": "oidc"},
                                                         "Action": "sts:AssumeRoleWithWebIdentity"}]}
        role = iam.create_role(RoleName="pods", AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
        iam.put_role_policy(RoleName="pods", PolicyName="all", PolicyDocument=json.dumps(policy))
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                      aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
    # Topics are made on the server's own endpoint (Ceph's gateway speaks SNS there).
    SNS.append(boto3.client("sns", endpoint_url=endpoint, region_name="us-east-1",
                            aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"]))

    ISSUER.append(issuer)
    proxy = Server(("127.0.0.1", 0), Proxy)
    proxy.daemon_threads = True
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    print(json.dumps({"port": proxy.server_address[1], "accessKey": key["AccessKeyId"], "secret": key["SecretAccessKey"],
                      "role": role}), flush=True)

    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        try:
            answer = run(command, s3)
        except Exception as error:  # the test sees what went wrong
            answer = {"error": f"{type(error).__name__}: {error}", "env": {k: v for k, v in os.environ.items() if "AWS" in k or "HOME" in k}}
        print(json.dumps(answer), flush=True)
    with LOCK:
        for event in HELD:
            event.set()
    proxy.shutdown()
    issuer.stop()
    if moto:
        moto.stop()


def ceph_role(endpoint, key, issuer):
    """Registers `issuer` with the gateway as an OpenID Connect provider and makes a role its
    tokens may assume, allowed every S3 action: the role's ARN. The gateway keeps both for the
    cluster's life; each server's issuer (and so role) is its own."""
    iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1",
                       aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
    # The gateway's form parser takes a "+" for itself, not a space: policies without spaces.
    compact = lambda value: json.dumps(value, separators=(",", ":"))
    provider = iam.create_open_id_connect_provider(Url=issuer.url, ClientIDList=[issuer.audience],
                                                   ThumbprintList=[issuer.thumbprint])["OpenIDConnectProviderArn"]
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Federated": [provider]},
                                                     "Action": ["sts:AssumeRoleWithWebIdentity"]}]}
    name = f"pods-{issuer.server.server_address[1]}-{os.getpid()}"
    role = iam.create_role(RoleName=name, Path="/", AssumeRolePolicyDocument=compact(trust))["Role"]["Arn"]
    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["s3:*"], "Resource": ["arn:aws:s3:::*"]}]}
    iam.put_role_policy(RoleName=name, PolicyName="all", PolicyDocument=compact(policy))
    return role


SNS = []


def run(command, s3):
    name = command["cmd"]
    if name == "notify":
        # A topic pushing to `endpoint` (persistent: a queue in the gateway), and the bucket's
        # notifications of objects created and removed under `prefix` sent to it.
        attributes = {"push-endpoint": command["endpoint"]}
        if command.get("persistent"):
            attributes["persistent"] = "true"
        topic = SNS[0].create_topic(Name=command["topic"], Attributes=attributes)["TopicArn"]
        # The gateway keeps a tenant's topics in one object: a topic made beside another one
        # can be lost (NoSuchKey below); made again, it holds.
        for attempt in range(5):
            try:
                s3.put_bucket_notification_configuration(Bucket=command["bucket"], NotificationConfiguration={"TopicConfigurations": [{
                    "Id": command["topic"], "TopicArn": topic, "Events": ["s3:ObjectCreated:*", "s3:ObjectRemoved:*"],
                    "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": command.get("prefix", "")}]}}}]})
                return {"topic": topic}
            except s3.exceptions.NoSuchKey:
                topic = SNS[0].create_topic(Name=command["topic"], Attributes=attributes)["TopicArn"]
        s3.put_bucket_notification_configuration(Bucket=command["bucket"], NotificationConfiguration={"TopicConfigurations": [{
            "Id": command["topic"], "TopicArn": topic, "Events": ["s3:ObjectCreated:*", "s3:ObjectRemoved:*"],
            "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": command.get("prefix", "")}]}}}]})
        return {"topic": topic}
    if name == "bucket":
        s3.create_bucket(Bucket=command["name"])
        return {"ok": True}
    if name == "put":
        with open(command["file"], "rb") as f:
            s3.put_object(Bucket=command["bucket"], Key=command["key"], Body=f.read())
        return {"ok": True}
    if name == "putmany":
        with open(command["file"], "rb") as f:
            data = f.read()
        for i in range(command["count"]):
            s3.put_object(Bucket=command["bucket"], Key=f"{command['prefix']}{i:05d}{command.get('suffix', '.jpg')}", Body=data)
        return {"ok": True}
    if name == "delete":
        s3.delete_object(Bucket=command["bucket"], Key=command["key"])
        return {"ok": True}
    if name == "token":
        return {"token": ISSUER[0].token()}
    if name == "policy":
        s3.put_bucket_policy(Bucket=command["bucket"], Policy=json.dumps(command["policy"]))
        return {"ok": True}
    if name == "stats":
        with LOCK:
            return dict(COUNTS)
    if name == "answered":
        with LOCK:
            return dict(ANSWERED)
    if name == "waitheld":
        # The event itself, not a clock: the answer comes when the requests are held (the
        # limit is only for a run that never sends them).
        with HELD_CHANGED:
            HELD_CHANGED.wait_for(lambda: sum(1 for event in HELD if not event.is_set()) >= command.get("count", 1), timeout=600)
            return {"held": sum(1 for event in HELD if not event.is_set())}
    if name == "waitanswered":
        # Answers once `count` requests of `kind` were answered (the limit only for a run that
        # never sends them).
        kind, count = command["kind"], command.get("count", 1)
        with HELD_CHANGED:
            HELD_CHANGED.wait_for(lambda: ANSWERED.get(kind, 0) >= count, timeout=600)
            return {"answered": ANSWERED.get(kind, 0)}
    if name == "waitput":
        # Answers once an object whose key starts with `prefix` was put in `bucket`, not
        # counting keys that contain `except` (the limit only for a run that never puts one).
        start, skip = f"/{command['bucket']}/{command['prefix']}", command.get("except")
        def put():
            return [p for p in PUT_PATHS if p.startswith(start) and not (skip and skip in p)]
        with HELD_CHANGED:
            HELD_CHANGED.wait_for(lambda: bool(put()), timeout=600)
            return {"keys": put()}
    if name == "held":
        with LOCK:
            return {"held": sum(1 for event in HELD if not event.is_set())}
    if name == "release":
        with LOCK:
            for event in HELD:
                event.set()
        return {"ok": True}
    if name == "most":
        with LOCK:
            return dict(MOST_IN_FLIGHT)
    if name == "reset":
        with LOCK:
            COUNTS.clear()
            MOST_IN_FLIGHT.clear()
            ANSWERED.clear()
            PUT_PATHS.clear()
            FAULTS.clear()
        return {"ok": True}
    if name == "fault":
        with LOCK:
            FAULTS.append(dict(command))
        return {"ok": True}
    if name == "list":
        pages = s3.get_paginator("list_objects_v2").paginate(Bucket=command["bucket"], Prefix=command.get("prefix", ""))
        return {"keys": {o["Key"]: o["Size"] for page in pages for o in page.get("Contents", [])}}
    if name == "get":
        data = s3.get_object(Bucket=command["bucket"], Key=command["key"])["Body"].read()
        return {"text": data.decode("latin-1"), "size": len(data)}
    if name == "head":
        answer = s3.head_object(Bucket=command["bucket"], Key=command["key"])
        return {k: answer.get(k) for k in ("ContentType", "CacheControl", "Metadata", "ContentLength", "ETag")}
    if name == "uploads":
        return {"uploads": [u["Key"] for u in s3.list_multipart_uploads(Bucket=command["bucket"]).get("Uploads", [])]}
    return {"error": f"unknown command {name}"}


if __name__ == "__main__":
    main()
