#!/usr/bin/env python3
"""SSE fan-out benchmark: N open event streams on one topic, one publish.

Starts `kith serve --dev` (release build), opens N streams to the
styleguide's demonstration topic from this process (aiohttp), triggers one
publish, and measures the time from the publish request until each stream has
the event: p50, p99 and max. Also the server's resident memory per open
stream (RSS with N streams minus RSS before them, over N).

One client process holds at most ~19,900 sockets here, so N up to 10,000 is
fine. Figures are measurements, not tests.
"""
import argparse
import asyncio
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KITH = os.path.join(ROOT, ".build", "release", "kith")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class StreamClient(asyncio.Protocol):
    """One SSE client on a raw socket: asyncio protocols, not streams, so the
    client spends as little as it can per byte and the figures measure the server."""

    def __init__(self, index, ready, arrivals, errors):
        self.index, self.ready, self.arrivals, self.errors = index, ready, arrivals, errors
        self.buffer = b""
        self.opened = False

    def connection_made(self, transport):
        self.transport = transport
        transport.write(b"GET /live?topics=styleguide:demo HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n")

    def data_received(self, data):
        if not self.opened:
            self.buffer += data
            if b"retry:" in self.buffer:
                self.opened = True
                self.ready.append(self.index)
                data = self.buffer
                self.buffer = b""
            else:
                return
        if b"event: invalidate" in data:
            self.arrivals[self.index] = time.perf_counter()
            self.transport.close()

    def connection_lost(self, exc):
        if self.index not in self.arrivals and exc is not None:
            self.errors.append(repr(exc))


async def open_stream(port, ready, arrivals, index, errors):
    loop = asyncio.get_running_loop()
    try:
        await loop.create_connection(lambda: StreamClient(index, ready, arrivals, errors), "127.0.0.1", port)
    except Exception as error:  # noqa: BLE001 — count every failure, keep going
        errors.append(repr(error))


async def publish(port):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST /styleguide/ping HTTP/1.1\r\nHost: bench\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    await writer.drain()
    await reader.read()
    writer.close()


async def run(port, pid, count, batch):
    arrivals = {}
    ready = []
    errors = []
    before = rss_kib(pid)
    tasks = []
    for start in range(0, count, batch):
        for index in range(start, min(start + batch, count)):
            tasks.append(asyncio.create_task(open_stream(port, ready, arrivals, index, errors)))
        deadline = time.time() + 30
        while len(ready) + len(errors) < min(start + batch, count) and time.time() < deadline:
            await asyncio.sleep(0.01)
    await asyncio.sleep(1.0)
    held = rss_kib(pid)
    opened = len(ready)
    t0 = time.perf_counter()
    await publish(port)
    deadline = time.time() + 30
    while len(arrivals) < opened and time.time() < deadline:
        await asyncio.sleep(0.005)
    latencies = sorted((arrivals[i] - t0) * 1000 for i in arrivals)
    return opened, latencies, errors, before, held


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", default="1000,10000")
    parser.add_argument("--batch", type=int, default=500)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    print(f"\nKith SSE fan-out — one topic, one publish, loopback, {os.cpu_count()} CPUs\n")
    print("| streams | opened | delivered | p50 ms | p99 ms | max ms | server RSS per stream | errors |")
    print("|---------|--------|-----------|--------|--------|--------|-----------------------|--------|")
    for count in [int(n) for n in args.streams.split(",")]:
        scratch = tempfile.mkdtemp(prefix="kith-sse-")
        port = free_port()
        server = subprocess.Popen([KITH, "serve", "--dev", "--quiet", "--port", str(port), "--data", scratch],
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
            opened, latencies, errors, before, held = asyncio.run(run(port, server.pid, count, args.batch))
            def pct(p):
                return latencies[min(len(latencies) - 1, int(len(latencies) * p))] if latencies else float("nan")
            per_stream = (held - before) * 1024 / max(opened, 1)
            print(f"| {count:>7} | {opened:>6} | {len(latencies):>9} | {pct(0.5):>6.1f} | {pct(0.99):>6.1f} | "
                  f"{(latencies[-1] if latencies else float('nan')):>6.1f} | {per_stream / 1024:>17.1f} KiB | {len(errors):>6} |")
            if errors:
                print(f"  first error: {errors[0]}", file=sys.stderr)
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
            subprocess.run(["rm", "-rf", scratch])


if __name__ == "__main__":
    main()
