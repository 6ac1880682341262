#!/usr/bin/env python3
"""Kith's static-file benchmark: wrk against the release build and nginx.

Rows: a content-hashed static asset near 4 KB and `app.css` (about 50 KB)
from kith and the same files from nginx in the same run, at each connection
count, with the kith/nginx ratio beside the issue's target (>= 1.0x). Both
servers get the same request (no Accept-Encoding, so identity bytes); one
more kith row asks for `br, gzip`. Then the bytes on the wire of the landing
page, the sign-in page and app.css, identity against gzip and brotli.

Figures are medians of --runs runs (default 5); each kith run is followed
at once by the same nginx run, and the ratio is the median of those pairs'
ratios, every pair printed. They are measurements on a
shared machine, not pass/fail tests. (Plaintext, Fortunes, the landing page
and idle memory are in bench_app.py.)
"""
import argparse
import hashlib
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import urllib.request

import bench_tls
from benchkit import cpu_ticks_tree, free_port, print_targets, start

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(ROOT, ".build", "release")
PUBLIC = os.path.join(ROOT, "Public")
CLK_TCK = os.sysconf("SC_CLK_TCK")


def to_ms(text):
    value = float(re.match(r"[\d.]+", text).group())
    if text.endswith("us"):
        return value / 1000
    if text.endswith("ms"):
        return value
    if text.endswith("s"):
        return value * 1000
    return value


def wrk(url, connections, seconds, pid, headers=()):
    before = cpu_ticks_tree(pid) if pid else 0
    extra = [arg for header in headers for arg in ("-H", header)]
    out = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", *extra, url],
        capture_output=True, text=True, check=True).stdout
    after = cpu_ticks_tree(pid) if pid else 0
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    p50 = to_ms(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1))
    p99 = to_ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    cpu_us = (after - before) * 1e6 / CLK_TCK / total if pid and total else float("nan")
    return {"rps": rps, "p50": p50, "p99": p99, "cpu": cpu_us,
            "errors": (int(errors.group(1)) if errors else 0), "socket": socket_errors.group(1) if socket_errors else ""}


def nginx_config(directory, port, public):
    return f"""
worker_processes 2;
pid {directory}/nginx.pid;
error_log {directory}/error.log;
daemon off;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    include /etc/nginx/mime.types;
    client_body_temp_path {directory};
    proxy_temp_path {directory};
    fastcgi_temp_path {directory};
    uwsgi_temp_path {directory};
    scgi_temp_path {directory};
    keepalive_requests 1000000;
    server {{
        listen 127.0.0.1:{port} reuseport;
        root {public};
        location / {{ add_header Cache-Control "public, max-age=31536000, immutable"; }}
    }}
}}
"""


def static_assets():
    """The file in Public/ closest to 4 KB, and the main stylesheet."""
    files = [os.path.relpath(os.path.join(d, f), PUBLIC) for d, _, fs in os.walk(PUBLIC) for f in fs]
    small = min(files, key=lambda f: abs(os.path.getsize(os.path.join(PUBLIC, f)) - 4096))
    return [small, "css/app.css"]


def hashed_url(asset):
    """The content-hashed URL kith serves a file under, built the same way."""
    with open(os.path.join(PUBLIC, asset), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:10]
    stem, dot, ext = os.path.basename(asset).partition(".")
    return "/static/" + os.path.join(os.path.dirname(asset), f"{stem}.{digest}{dot}{ext}")


def fetch(url, encoding=None):
    """The body as sent (urllib does not decompress) and its Content-Encoding."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": encoding} if encoding else {})
    with urllib.request.urlopen(request) as response:
        return response.read(), response.headers.get("Content-Encoding")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--connections", default="64,256")
    parser.add_argument("--kith", default=os.path.join(RELEASE, "kith"), help="the kith binary (to compare builds)")
    args = parser.parse_args()
    for tool in ("wrk", "nginx"):
        if not shutil.which(tool):
            sys.exit(f"bench: {tool} is not installed (make bench installs it)")

    scratch = tempfile.mkdtemp(prefix="kith-bench-")
    processes = []
    try:
        kith_port, nginx_port = free_port(), free_port()
        # --quiet: nginx below writes no access log either.
        kith = start([args.kith, "serve", "--port", str(kith_port), "--quiet", "--root", ROOT,
                      "--data", os.path.join(scratch, "kith")], kith_port)
        processes.append(kith)
        config = os.path.join(scratch, "nginx.conf")
        with open(config, "w") as f:
            f.write(nginx_config(scratch, nginx_port, PUBLIC))
        nginx = start(["nginx", "-c", config], nginx_port)
        processes.append(nginx)

        assets = static_assets()
        for asset in assets:
            body, _ = fetch(f"http://127.0.0.1:{kith_port}{hashed_url(asset)}")
            assert len(body) == os.path.getsize(os.path.join(PUBLIC, asset)), "the hashed URL serves the file"

        connections = [int(c) for c in args.connections.split(",")]
        compressed = ("Accept-Encoding: br, gzip",)
        # (label, url, pid, headers)
        targets = []
        for asset in assets:
            label = f"{os.path.basename(asset)} {os.path.getsize(os.path.join(PUBLIC, asset)) / 1024:.1f} KB"
            targets.append((f"{label} (kith)", f"http://127.0.0.1:{kith_port}{hashed_url(asset)}", kith.pid, ()))
            targets.append((f"{label} (nginx)", f"http://127.0.0.1:{nginx_port}/{asset}", nginx.pid, ()))
        targets.append(("app.css br (kith)", f"http://127.0.0.1:{kith_port}{hashed_url('css/app.css')}", kith.pid, compressed))

        # Kith and nginx run back to back for each asset and connection
        # count, so each pair meets the same moment of a shared machine; the
        # ratio reported is the median of the pairs' ratios.
        results = {}
        for _ in range(args.runs):
            for c in connections:
                for name, url, pid, headers in targets:
                    results.setdefault((name, c), []).append(wrk(url, c, args.seconds, pid, headers))

        print(f"\nKith static files — wrk -t2, {args.seconds}s, median of {args.runs} runs (each kith run paired with an nginx run), loopback, "
              f"{os.cpu_count()} CPUs shared by server and wrk; no request log on either server\n")
        width = max(len(t[0]) for t in targets)
        print(f"| {'target':<{width}} | conns | {'req/s':>9} | {'p50 ms':>7} | {'p99 ms':>7} | {'server CPU µs/req':>17} | errors |")
        print(f"|{'-' * (width + 2)}|-------|{'-' * 11}|{'-' * 9}|{'-' * 9}|{'-' * 19}|--------|")
        med = lambda name, c, key: statistics.median(r[key] for r in results[(name, c)])
        for name, _, pid, _ in targets:
            for c in connections:
                rows = results[(name, c)]
                cpu = f"{med(name, c, 'cpu'):.1f}" if pid else "—"
                errors = sum(r["errors"] for r in rows)
                print(f"| {name:<{width}} | {c:>5} | {med(name, c, 'rps'):>9.0f} | {med(name, c, 'p50'):>7.2f} | "
                      f"{med(name, c, 'p99'):>7.2f} | {cpu:>17} | {errors:>6} |")

        rows = []
        for index in range(0, 4, 2):
            kith_name, nginx_name = targets[index][0], targets[index + 1][0]
            for c in connections:
                pairs = [k["rps"] / n["rps"] for k, n in zip(results[(kith_name, c)], results[(nginx_name, c)])]
                ratio = statistics.median(pairs)
                shown = ", ".join(f"{p:.2f}" for p in pairs)
                rows.append((f"{kith_name[:-7]}, {c} conns: kith/nginx", f"{ratio:.2f}× (pairs {shown})", "≥ 1.0×", ratio >= 1.0))
                rows.append((f"{kith_name[:-7]}, {c} conns: CPU kith / nginx",
                             f"{med(kith_name, c, 'cpu'):.1f} / {med(nginx_name, c, 'cpu'):.1f} µs/req", "—", None))
        print_targets("Static files against nginx, same run (issue 19: Static)", rows)

        pages = [("landing page", "/"), ("sign-in page", "/signin"), ("app.css", hashed_url("css/app.css"))]
        rows = []
        for label, path in pages:
            url = f"http://127.0.0.1:{kith_port}{path}"
            sizes = {}
            for coding in ("identity", "gzip", "br"):
                # A server that ignores the header answers identity: its row shows no saving.
                body, _ = fetch(url, None if coding == "identity" else coding)
                sizes[coding] = len(body)
            saved = 1 - sizes["br"] / sizes["identity"]
            rows.append((f"{label}: identity / gzip / br bytes",
                         f"{sizes['identity']} / {sizes['gzip']} / {sizes['br']}", "compressed", sizes["br"] < sizes["identity"]))
            rows.append((f"{label}: saved by br", f"{saved:.0%}", "—", None))
        print_targets("Bytes on the wire (issue 19: Compression)", rows)

        # HTTPS handshakes, on a server of their own (bench_tls.py).
        bench_tls.run(args.kith)
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
