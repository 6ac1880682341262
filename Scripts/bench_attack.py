#!/usr/bin/env python3
"""Kith under attack: figures, not tests.

Starts the release build on a fresh data directory and measures, from this
machine's loopback only:

1. resident memory while signed-out clients throw large bodies (raw,
   chunked and multipart) at the upload routes;
2. a signed-in page's latency (p50/p99) while 128 connections, each from its
   own loopback address, post sign-ups as fast as they are answered;
3. how many connections one address can hold open.

Every loop is bounded in time and count, and stops by itself.
"""
import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from benchkit import cpu_seconds, rss_kib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KITH = os.path.join(ROOT, ".build", "release", "kith")


def rss_mib(pid):
    return rss_kib(pid) / 1024


def connect(port, source=None, timeout=10):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    if source:
        s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    return s


def exchange(port, request, source=None):
    """Sends one request, reads one response; returns (status, headers, body)."""
    with connect(port, source) as s:
        s.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
        headers = {}
        cookies = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
            if name.strip().lower() == "set-cookie":
                pair = value.strip().split(";", 1)[0]
                k, _, v = pair.partition("=")
                cookies[k] = v
        length = int(headers.get("content-length", "0") or 0)
        while len(body) < length:
            chunk = s.recv(65536)
            if not chunk:
                break
            body += chunk
        return status, headers, cookies, body


def form_token(body):
    m = re.search(rb'name="_csrf" value="([^"]+)"', body)
    return m.group(1).decode() if m else ""


def get(port, path, cookie="", source=None):
    extra = f"Cookie: {cookie}\r\n" if cookie else ""
    return exchange(port, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n{extra}\r\n".encode(), source)


def post(port, path, fields, cookie="", source=None):
    from urllib.parse import urlencode
    body = urlencode(fields).encode()
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n"
            f"Origin: http://127.0.0.1:{port}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {len(body)}\r\n" + (f"Cookie: {cookie}\r\n" if cookie else "") + "\r\n")
    return exchange(port, head.encode() + body, source)


def cookie_header(cookies):
    return "; ".join(f"{k}={v}" for k, v in cookies.items())


def start(data, extra=()):
    proc = subprocess.Popen([KITH, "serve", "--port", "0", "--data", data, "--quiet", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    deadline = time.time() + 30
    banner = ""
    while time.time() < deadline:
        line = proc.stdout.readline()
        banner += line
        m = re.search(r"(?:listening on [^:\s]+:|http://127\.0\.0\.1:)(\d+)", banner)
        if m:
            return proc, int(m.group(1))
    proc.kill()
    raise RuntimeError("kith did not start: " + banner)


def upload_attack(port, pid, seconds, connections):
    """Signed-out clients stream large bodies at the upload routes."""
    stop = time.time() + seconds
    peak = [rss_mib(pid)]
    heads = [
        "Content-Type: application/octet-stream\r\nContent-Length: 500000000",
        "Content-Type: application/octet-stream\r\nTransfer-Encoding: chunked",
        "Content-Type: multipart/form-data; boundary=xyz\r\nContent-Length: 500000000",
    ]
    paths = ["/occasions/1/gift/video", "/occasions/1/gift/photos", "/occasions/1/gift/voice"]
    sent = [0]
    lock = threading.Lock()

    def attacker(i):
        chunk = b"A" * 65536
        while time.time() < stop:
            try:
                with connect(port, timeout=2) as s:
                    head = heads[i % 3]
                    s.sendall(f"POST {paths[i % 3]} HTTP/1.1\r\nHost: x\r\n{head}\r\n\r\n".encode())
                    body = b"--xyz\r\nContent-Disposition: form-data; name=\"video\"; filename=\"a.mp4\"\r\n\r\n" if "xyz" in head else b""
                    s.sendall(body)
                    while time.time() < stop:
                        frame = (b"10000\r\n" + chunk + b"\r\n") if "chunked" in head else chunk
                        s.sendall(frame)
                        with lock:
                            sent[0] += len(chunk)
            except OSError:
                time.sleep(0.01)

    threads = [threading.Thread(target=attacker, args=(i,), daemon=True) for i in range(connections)]
    for t in threads:
        t.start()
    while time.time() < stop:
        peak.append(rss_mib(pid))
        time.sleep(0.1)
    for t in threads:
        t.join(5)
    return max(peak), sent[0]


def signup_flood(port, seconds, connections, page_cookie):
    """128 addresses post sign-ups; one signed-in reader measures its page."""
    stop = time.time() + seconds
    statuses = {}
    lock = threading.Lock()

    def flooder(i):
        source = f"127.0.{1 + i // 250}.{1 + i % 250}"
        n = 0
        while time.time() < stop:
            try:
                status, _, cookies, body = get(port, "/signup", source=source)
                token = form_token(body)
                status, _, _, _ = post(port, "/signup", {
                    "display_name": f"Flood {i}", "username": f"flood_{i}_{n}", "password": "correct horse battery",
                    "time_zone": "UTC", "_csrf": token}, cookie=cookie_header(cookies), source=source)
                n += 1
                with lock:
                    statuses[status] = statuses.get(status, 0) + 1
            except OSError:
                time.sleep(0.01)

    threads = [threading.Thread(target=flooder, args=(i,), daemon=True) for i in range(connections)]
    for t in threads:
        t.start()
    latencies = []
    while time.time() < stop:
        began = time.perf_counter()
        status, _, _, _ = get(port, "/", cookie=page_cookie)
        latencies.append((time.perf_counter() - began) * 1000)
    for t in threads:
        t.join(10)
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return statistics.median(latencies), p99, len(latencies), statuses


def connections_per_address(port, limit=2000):
    held = []
    try:
        for _ in range(limit):
            s = connect(port, timeout=2)
            held.append(s)
        time.sleep(0.3)
        # Those the server refused were accepted and closed at once.
        open_count = 0
        for s in held:
            s.setblocking(False)
            try:
                data = s.recv(1)
                if data == b"":
                    continue
            except BlockingIOError:
                pass
            except OSError:
                continue
            open_count += 1
        return open_count
    finally:
        for s in held:
            s.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    args = parser.parse_args()
    if not os.path.exists(KITH):
        sys.exit("build the release first: make release")
    with tempfile.TemporaryDirectory() as data:
        proc, port = start(data)
        try:
            time.sleep(0.5)
            idle = rss_mib(proc.pid)
            peak, sent = upload_attack(port, proc.pid, args.seconds, 48)
            time.sleep(1)
            after = rss_mib(proc.pid)
            print(f"upload attack: 48 signed-out connections, {sent / 1e6:.0f} MB offered in {args.seconds} s: "
                  f"RSS {idle:.1f} MiB idle, {peak:.1f} MiB peak, {after:.1f} MiB after")

            status, _, cookies, body = get(port, "/signup")
            status, _, session, _ = post(port, "/signup", {
                "display_name": "Reader", "username": "reader", "password": "correct horse battery",
                "time_zone": "UTC", "_csrf": form_token(body)}, cookie=cookie_header(cookies))
            page_cookie = cookie_header(session)
            quiet = []
            for _ in range(200):
                began = time.perf_counter()
                get(port, "/", cookie=page_cookie)
                quiet.append((time.perf_counter() - began) * 1000)
            quiet.sort()
            print(f"signed-in page, quiet: p50 {statistics.median(quiet):.2f} ms, p99 {quiet[197]:.2f} ms")
            cpu_before, wall_before = cpu_seconds(proc.pid), time.time()
            p50, p99, count, statuses = signup_flood(port, args.seconds, 128, page_cookie)
            busy = (cpu_seconds(proc.pid) - cpu_before) / (time.time() - wall_before)
            shown = ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items()))
            print(f"signed-in page under a sign-up flood from 128 addresses: p50 {p50:.2f} ms, p99 {p99:.2f} ms "
                  f"({count} requests); sign-up answers {shown}; kith used {busy:.2f} cores of {os.cpu_count()}")

            held = connections_per_address(port)
            print(f"connections one address can hold open: {held}")
        finally:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    main()
