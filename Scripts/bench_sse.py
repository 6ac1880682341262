#!/usr/bin/env python3
"""SSE fan-out benchmark: N open event streams on one topic, one publish.

Starts `kith serve --dev` (release build), opens N streams to the
styleguide's demonstration topic from another process (`kith-bench
sse-clients`, a native epoll client, so the client's own per-socket cost does
not swamp the figures), triggers one publish, and measures the time from the
publish request until each stream has the event: p50, p99 and max. Also the
server's resident memory per open stream (RSS with N streams minus RSS before
them, over N).

One client process holds at most ~19,900 sockets here, so N up to 10,000 is
fine. Figures are measurements, not tests; the issue's target is p99 at most
50 ms at 10,000 streams.
"""
import argparse
import os
import re
import resource
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

from benchkit import free_port, print_targets, rss_kib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("KITH_BUILD", os.path.join(ROOT, ".build", "release"))
KITH = os.path.join(BUILD, "kith")
BENCH = os.path.join(BUILD, "kith-bench")


def form_token(port):
    """What a browser has before it posts: the pre-session cookie and the
    page's CSRF token (every post to Kith needs both)."""
    page = urllib.request.urlopen(f"http://127.0.0.1:{port}/styleguide")
    cookie = page.headers.get("Set-Cookie", "").split(";")[0]
    token = re.search(r'name="_csrf" value="([^"]+)"', page.read().decode()).group(1)
    return cookie, token


def publish(port, cookie, token):
    body = f"_csrf={urllib.parse.quote(token)}".encode()
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"POST /styleguide/ping HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n"
                  + f"Cookie: {cookie}\r\nOrigin: http://127.0.0.1:{port}\r\n".encode()
                  + b"Content-Type: application/x-www-form-urlencoded\r\n"
                  + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        response = b""
        while chunk := s.recv(65536):
            response += chunk
    assert response.startswith(b"HTTP/1.1 303"), response[:200]


def cpu_ns(pid):
    """Time on CPU of every thread of the process, in nanoseconds
    (/proc/PID/task/*/schedstat): unlike wall-clock latency on a shared
    machine, it does not grow when other work competes for the cores."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


def run(port, pid, count):
    """Opens the streams from the native client, publishes once, and reads
    back when each stream had the event (both sides use CLOCK_MONOTONIC)."""
    cookie, token = form_token(port)
    before = rss_kib(pid)
    client = subprocess.Popen([BENCH, "sse-clients", "--port", str(port), "--streams", str(count)],
                              stdout=subprocess.PIPE, text=True, cwd=ROOT)
    ready = client.stdout.readline().split()
    opened = int(ready[1]) if len(ready) == 2 and ready[0] == "ready" else 0
    time.sleep(1.0)
    held = rss_kib(pid)
    cpu_before = cpu_ns(pid)
    t0 = time.monotonic_ns()
    publish(port, cookie, token)
    arrivals, failed = [], 0
    for line in client.stdout:
        words = line.split()
        if words and words[0] == "arrivals":
            arrivals = [int(w) for w in words[1:]]
        elif words and words[0] == "failed":
            failed = int(words[1])
    client.wait(timeout=60)
    fan_out_cpu = (cpu_ns(pid) - cpu_before) / 1e6
    latencies = sorted((a - t0) / 1e6 for a in arrivals)
    return opened, latencies, failed, before, held, fan_out_cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", default="1000,10000")
    parser.add_argument("--table", action="store_true", help="also the detailed table of every run")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    rows, table = [], []
    for count in [int(n) for n in args.streams.split(",")]:
        scratch = tempfile.mkdtemp(prefix="kith-sse-")
        port = free_port()
        # Every stream comes from 127.0.0.1: the per-address caps, which guard
        # a real server against one client, would refuse all but the first few.
        server = subprocess.Popen([KITH, "serve", "--dev", "--quiet", "--port", str(port), "--data", scratch,
                                   "--max-connections-per-address", str(count + 64),
                                   "--streams-per-address", str(count + 64)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        try:
            deadline = time.time() + 20
            while time.time() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                    break
                except OSError:
                    time.sleep(0.05)
            time.sleep(0.3)
            opened, latencies, errors, before, held, fan_out_cpu = run(port, server.pid, count)
            def pct(p):
                return latencies[min(len(latencies) - 1, int(len(latencies) * p))] if latencies else float("nan")
            per_stream = (held - before) * 1024 / max(opened, 1)
            worst = latencies[-1] if latencies else float("nan")
            table.append(f"| {count:>7} | {opened:>6} | {len(latencies):>9} | {pct(0.5):>6.1f} | {pct(0.99):>6.1f} | "
                         f"{worst:>6.1f} | {per_stream / 1024:>17.1f} KiB | {errors:>6} |")
            complete = opened == count and len(latencies) == count and errors == 0
            target = count == 10_000
            rows.append((f"{count:,} streams: p99 publish to arrival", f"{pct(0.99):.1f} ms",
                         "≤ 50 ms" if target else "—", (complete and pct(0.99) <= 50) if target else None))
            rows.append((f"  p50, max", f"{pct(0.5):.1f} ms, {worst:.1f} ms", "—", None))
            rows.append((f"  delivered / opened / asked", f"{len(latencies)} / {opened} / {count}",
                         f"{count} / {count} / {count}", complete))
            rows.append((f"  server CPU for the publish and fan-out", f"{fan_out_cpu:.1f} ms", "—", None))
            rows.append((f"  server RSS per stream", f"{per_stream / 1024:.1f} KiB", "—", None))
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
            subprocess.run(["rm", "-rf", scratch])
    print_targets(f"Kith SSE fan-out — one topic, one publish, loopback, {os.cpu_count()} CPUs", rows)
    if args.table:
        print("\n| streams | opened | delivered | p50 ms | p99 ms | max ms | server RSS per stream | errors |")
        print("|---------|--------|-----------|--------|--------|--------|-----------------------|--------|")
        print("\n".join(table))


if __name__ == "__main__":
    main()
