#!/usr/bin/env python3
"""Kith's benchmark: wrk against the release build, printed as a table.

Targets: a content-hashed static asset and the landing page from `kith`;
TechEmpower "plaintext" and "Fortunes" from `kith-bench`; and, when nginx is
installed, the same static file from nginx for a same-run ratio.

Figures are medians of --runs runs (default 3). They are measurements on a
shared machine, not pass/fail tests.
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
import time
import urllib.request

from benchkit import cpu_ticks, free_port, rss_kib, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(ROOT, ".build", "release")
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


def wrk(url, connections, seconds, pid):
    before = cpu_ticks(pid) if pid else 0
    out = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", url],
        capture_output=True, text=True, check=True).stdout
    after = cpu_ticks(pid) if pid else 0
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    p50 = to_ms(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1))
    p99 = to_ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    cpu_us = (after - before) * 1e6 / CLK_TCK / total if pid and total else float("nan")
    return {"rps": rps, "p50": p50, "p99": p99, "cpu": cpu_us,
            "errors": (int(errors.group(1)) if errors else 0), "socket": socket_errors.group(1) if socket_errors else ""}


def start(command, port, env=None, log=None):
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log or subprocess.DEVNULL,
                               env=env, cwd=ROOT)
    wait_for(port)
    return process


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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--connections", default="64,256")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("bench: wrk is not installed (make bench installs it)")

    scratch = tempfile.mkdtemp(prefix="kith-bench-")
    processes = []
    try:
        kith_port, bench_port = free_port(), free_port()
        kith = start([os.path.join(RELEASE, "kith"), "serve", "--port", str(kith_port),
                      "--data", os.path.join(scratch, "kith")], kith_port)
        processes.append(kith)
        time.sleep(0.5)
        idle_rss = rss_kib(kith.pid)
        bench = start([os.path.join(RELEASE, "kith-bench"), "--port", str(bench_port),
                       "--data", os.path.join(scratch, "bench")], bench_port)
        processes.append(bench)

        # The static target is the file in Public/ closest to 4 KB, served by
        # its content-hashed URL (read from the manifest of hashed names the
        # landing page links to, or built the same way kith builds it).
        public = os.path.join(ROOT, "Public")
        files = [os.path.relpath(os.path.join(d, f), public) for d, _, fs in os.walk(public) for f in fs]
        asset = min(files, key=lambda f: abs(os.path.getsize(os.path.join(public, f)) - 4096))
        size = os.path.getsize(os.path.join(public, asset))
        with open(os.path.join(public, asset), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:10]
        stem, dot, ext = os.path.basename(asset).partition(".")
        hashed = os.path.join(os.path.dirname(asset), f"{stem}.{digest}{dot}{ext}")
        css = f"/static/{hashed}"
        landing = urllib.request.urlopen(f"http://127.0.0.1:{kith_port}{css}").read()
        assert len(landing) == size, "the hashed URL serves the file"

        targets = [
            (f"static {size / 1024:.1f} KB (kith)", f"http://127.0.0.1:{kith_port}{css}", kith.pid),
            ("landing page (kith)", f"http://127.0.0.1:{kith_port}/", kith.pid),
            ("plaintext (kith-bench)", f"http://127.0.0.1:{bench_port}/plaintext", bench.pid),
            ("Fortunes (kith-bench)", f"http://127.0.0.1:{bench_port}/fortunes", bench.pid),
        ]
        if shutil.which("nginx"):
            nginx_port = free_port()
            config = os.path.join(scratch, "nginx.conf")
            with open(config, "w") as f:
                f.write(nginx_config(scratch, nginx_port, os.path.join(ROOT, "Public")))
            nginx = start(["nginx", "-c", config], nginx_port)
            processes.append(nginx)
            targets.insert(1, (f"static {size / 1024:.1f} KB (nginx)", f"http://127.0.0.1:{nginx_port}/{asset}", None))

        connections = [int(c) for c in args.connections.split(",")]
        results = {}
        for run in range(args.runs):
            for name, url, pid in targets:
                for c in connections:
                    results.setdefault((name, c), []).append(wrk(url, c, args.seconds, pid))

        print(f"\nKith benchmark — wrk -t2, {args.seconds}s, median of {args.runs} runs, loopback, "
              f"{os.cpu_count()} CPUs shared by server and wrk\n")
        print(f"| {'target':<26} | conns | {'req/s':>9} | {'p50 ms':>7} | {'p99 ms':>7} | {'server CPU µs/req':>17} | errors |")
        print(f"|{'-' * 28}|-------|{'-' * 11}|{'-' * 9}|{'-' * 9}|{'-' * 19}|--------|")
        for name, url, pid in targets:
            for c in connections:
                rows = results[(name, c)]
                med = lambda key: statistics.median(r[key] for r in rows)
                cpu = f"{med('cpu'):.1f}" if pid else "—"
                errors = sum(r["errors"] for r in rows)
                print(f"| {name:<26} | {c:>5} | {med('rps'):>9.0f} | {med('p50'):>7.2f} | {med('p99'):>7.2f} | {cpu:>17} | {errors:>6} |")
        if shutil.which("nginx"):
            for c in connections:
                kith_static = statistics.median(r["rps"] for r in results[(targets[0][0], c)])
                nginx_static = statistics.median(r["rps"] for r in results[(targets[1][0], c)])
                print(f"\nstatic, {c} connections: kith/nginx = {kith_static / nginx_static:.2f}×")
        print(f"\nkith idle RSS after start: {idle_rss / 1024:.1f} MiB")
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
