#!/usr/bin/env python3
"""A deliberately misbehaving HTTP server for FilterWorkbench's tests.

usage: test_server.py SAMPLES_DIR

Binds 127.0.0.1 on a free port, prints the port on the first line of stdout, and serves until
its standard input closes (so it never outlives the test that started it).

Routes:
  /samples/NAME          the file NAME from SAMPLES_DIR
  /slow/NAME?delay=S     the same after S seconds
  /status/CODE           an empty response with that status
  /truncated/NAME        the first third of NAME, declared with its real length (cut transfer)
  /cut/NAME              the first half of NAME as a complete response (a damaged file)
  /garbage.jpg           bytes that are no image, served as image/jpeg
  /flaky/NAME?fail=N     HTTP 500 for the first N requests of this path, then NAME
  /limited/NAME?wait=S   HTTP 429 with Retry-After: S for the first request, then NAME
  /redirect/N/NAME       a chain of N redirects ending at /samples/NAME
  /loop                  redirects to itself forever
  /tofile                redirects to file:///etc/passwd
  /drip?seconds=S        a body that trickles in one byte a second for S seconds
  /big?bytes=B&declare=1 B bytes, with a Content-Length only if declare=1
  /reset                 closes the connection without answering
  /typed/NAME            NAME served as text/plain
  /tagged/NAME           NAME with an ETag (its content's hash); 304 to a matching If-None-Match
  /dated/NAME            NAME with a Last-Modified (its file's time); 304 to an If-Modified-Since not older
  /echo-headers          JSON: the request's headers
  /stats                 JSON: request counts by path, and "connections": connections accepted
"""
import email.utils
import hashlib
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler

from quiet_server import Server
from urllib.parse import parse_qs, urlparse

SAMPLES = sys.argv[1]
COUNTS = {}
LOCK = threading.Lock()



class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        with LOCK:
            COUNTS["connections"] = COUNTS.get("connections", 0) + 1
        super().setup()

    def send_body(self, status, body, content_type="image/jpeg", length=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        try:
            self.wfile.write(body)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def redirect(self, location):
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def sample(self, name):
        path = os.path.join(SAMPLES, os.path.basename(name))
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            return f.read()

    def do_GET(self):
        url = urlparse(self.path)
        with LOCK:
            COUNTS[url.path] = COUNTS.get(url.path, 0) + 1
        parts = url.path.strip("/").split("/", 1)
        route, arg = parts[0], parts[1] if len(parts) > 1 else ""
        if route == "stats":
            return self.send_body(200, json.dumps(COUNTS).encode(), "application/json")
        if route == "status":
            return self.send_body(int(arg), b"", "text/plain")
        query = parse_qs(url.query)
        if route == "flaky":
            if COUNTS[url.path] <= int(query.get("fail", ["1"])[0]):
                return self.send_body(500, b"try again\n", "text/plain")
            route = "samples"
        if route == "limited":
            if COUNTS[url.path] == 1:
                self.send_response(429)
                self.send_header("Retry-After", query.get("wait", ["1"])[0])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            route = "samples"
        if route == "redirect":
            count, name = arg.split("/", 1)
            target = f"/redirect/{int(count) - 1}/{name}" if int(count) > 1 else f"/samples/{name}"
            return self.redirect(target)
        if route == "loop":
            return self.redirect("/loop")
        if route == "tofile":
            return self.redirect("file:///etc/passwd")
        if route == "drip":
            seconds = int(query.get("seconds", ["10"])[0])
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", str(seconds))
            self.end_headers()
            try:
                for _ in range(seconds):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(1)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        if route == "big":
            size = int(query.get("bytes", ["1000000"])[0])
            declare = query.get("declare", ["1"])[0] == "1"
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            if declare:
                self.send_header("Content-Length", str(size))
            else:
                self.close_connection = True
            self.end_headers()
            try:
                chunk = b"\0" * 65536
                left = size
                while left > 0:
                    self.wfile.write(chunk[: min(left, len(chunk))])
                    left -= len(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        if route == "reset":
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if route in ("tagged", "dated"):
            body = self.sample(arg)
            if body is None:
                return self.send_body(404, b"not found\n", "text/plain")
            if route == "tagged":
                validator = ("ETag", '"' + hashlib.sha1(body).hexdigest() + '"')
                unchanged = self.headers.get("If-None-Match") == validator[1]
            else:
                stamp = int(os.path.getmtime(os.path.join(SAMPLES, os.path.basename(arg))))
                validator = ("Last-Modified", email.utils.formatdate(stamp, usegmt=True))
                since = self.headers.get("If-Modified-Since")
                unchanged = since is not None and email.utils.parsedate_to_datetime(since).timestamp() >= stamp
            if unchanged:
                with LOCK:
                    COUNTS["not-modified"] = COUNTS.get("not-modified", 0) + 1
                self.send_response(304)
                self.send_header(*validator)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header(*validator)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if route == "echo-headers":
            return self.send_body(200, json.dumps(dict(self.headers)).encode(), "application/json")
        if route == "typed":
            body = self.sample(arg)
            return self.send_body(200, body or b"", "text/plain")
        if route == "garbage.jpg":
            return self.send_body(200, b"this is not an image\n" * 100)
        if route in ("samples", "slow", "truncated", "cut"):
            body = self.sample(arg)
            if body is None:
                return self.send_body(404, b"not found\n", "text/plain")
            if route == "slow":
                time.sleep(float(parse_qs(url.query).get("delay", ["1"])[0]))
            if route == "truncated":
                # Declares the full length but sends a third and closes: a cut-off transfer.
                self.send_body(200, body[: len(body) // 3], length=len(body))
                self.close_connection = True
                return
            if route == "cut":
                return self.send_body(200, body[: len(body) // 2])
            return self.send_body(200, body)
        self.send_body(404, b"not found\n", "text/plain")


def main():
    # Many clients connect at once in the concurrency tests; the default backlog of 5 would
    # make the rest retry their connection a second later.
    Server.request_queue_size = 128
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()  # returns when the test closes our stdin or exits
    server.shutdown()


if __name__ == "__main__":
    main()
