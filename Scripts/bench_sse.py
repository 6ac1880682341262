#!/usr/bin/env python3
"""SSE fan-out benchmark: N open event streams on one topic, one publish.

Starts `kith serve --dev` (release build), opens N streams to the
styleguide's demonstration topic from another process (`kith-bench
sse-clients`, a native epoll client, so the client's own per-socket cost does
not swamp the figures), triggers one publish, and measures the time from the
publish request until each stream has the event: p50, p99 and max, both when
the kernel queued it on the client's socket (delivery: what the server
controls) and when the client, a single thread competing with the server for
the same cores, got round to reading it. Also the server's CPU time for the
publish alone (the streams stay open until it is read), the client's, the
server's for the disconnections that follow, and the server's resident
memory per open stream (RSS with N streams minus RSS before them, over N).
`--syscalls` instead counts the server's system calls per stream (strace).
`--deferred-client` has the client read nothing until the server is idle
again: on a machine whose few cores the client shares with the server, that
measures the fan-out as clients on other machines would see it.

Each Kith run is followed at once by the same run against `kith-bench
sse-floor`: two threads, as many as Kith's event loops, that hold the
streams and, when told, make one `send` per stream and nothing else. Its p99
is what the kernel alone costs for the fan-out on this machine, so Kith's
figure over it is Kith's own share, comparable between machines whose
network stacks differ (machines of one kind have differed threefold). With
`--runs` above 1 every figure is the median of the runs, and the ratio the
median of each pair's.

One client process holds at most ~19,900 sockets here, so N up to 10,000 is
fine. Figures are measurements, not tests; the issue's target is p99 at most
50 ms at 10,000 streams.
"""
import argparse
import os
import re
import resource
import statistics
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

from benchkit import free_port, print_targets, rss_kib, start, stop

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


def publish_floor(port):
    """The floor's trigger: any POST, answered once every thread is told."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"POST /publish HTTP/1.1\r\nHost: bench\r\nContent-Length: 0\r\n\r\n")
        response = b""
        while chunk := s.recv(65536):
            response += chunk
    assert response.startswith(b"HTTP/1.1 204"), response[:200]


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


def wait_until_idle(pid, quiet_ns=2_000_000, step=0.1, timeout=20):
    """Until the process spends less than `quiet_ns` of CPU in `step` seconds."""
    deadline = time.time() + timeout
    last = cpu_ns(pid)
    while time.time() < deadline:
        time.sleep(step)
        now = cpu_ns(pid)
        if now - last < quiet_ns:
            return
        last = now


def run(port, pid, count, trigger, syscalls=False, deferred=False):
    """Opens the streams from the native client, publishes once with
    `trigger()`, and reads back when each stream had the event (both sides
    use CLOCK_MONOTONIC). The client keeps its streams open until the
    server's CPU for the publish has been read, so ten thousand
    disconnections are counted apart."""
    before = rss_kib(pid)
    client = subprocess.Popen([BENCH, "sse-clients", "--port", str(port), "--streams", str(count), "--hold"]
                              + (["--defer"] if deferred else []),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    ready = client.stdout.readline().split()
    opened = int(ready[1]) if len(ready) == 2 and ready[0] == "ready" else 0
    time.sleep(1.0)
    held = rss_kib(pid)
    tracer = start_strace(pid) if syscalls else None
    cpu_before, client_before = cpu_ns(pid), cpu_ns(client.pid)
    t0 = time.monotonic_ns()
    trigger()
    if deferred:
        # The client reads only once the server has finished: its figures are
        # the receive timestamps, and the fan-out had both cores to itself.
        wait_until_idle(pid)
        deferred_cpu = cpu_ns(pid)
        client.stdin.write("read\n")
        client.stdin.flush()
    arrivals, received, failed = [], [], 0
    for line in client.stdout:
        words = line.split()
        if words and words[0] == "arrivals":
            arrivals = [int(w) for w in words[1:]]
        elif words and words[0] == "received":
            received = [int(w) for w in words[1:]]
        elif words and words[0] == "failed":
            failed = int(words[1])
            break
    fan_out_cpu = ((deferred_cpu if deferred else cpu_ns(pid)) - cpu_before) / 1e6
    client_cpu = (cpu_ns(client.pid) - client_before) / 1e6
    calls = stop_strace(tracer) if tracer else None
    client.stdin.close()
    client.wait(timeout=60)
    # Every stream's end reaches the server's loops a moment after the client exits.
    time.sleep(1.0)
    disconnect_cpu = (cpu_ns(pid) - cpu_before) / 1e6 - fan_out_cpu
    return {
        "opened": opened, "failed": failed, "before": before, "held": held,
        "read": sorted((a - t0) / 1e6 for a in arrivals),
        "received": sorted((a - t0) / 1e6 for a in received),
        "cpu": fan_out_cpu, "client_cpu": client_cpu, "disconnect_cpu": disconnect_cpu, "calls": calls,
    }


def start_strace(pid):
    """`strace -c` on every thread of the server for the publish only. It
    slows the server many times over: a run with it counts system calls, and
    its times mean nothing."""
    out = tempfile.NamedTemporaryFile(prefix="kith-sse-strace-", delete=False)
    tracer = subprocess.Popen(["strace", "-c", "-f", "-q", "-o", out.name, "-p", str(pid)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)  # attaching to every thread takes a moment
    return tracer, out.name


def stop_strace(tracer):
    """The system calls the server made, {name: count}."""
    process, path = tracer
    process.send_signal(signal.SIGINT)
    process.wait(timeout=30)
    calls = {}
    with open(path) as f:
        for line in f:
            words = line.split()
            # "% time  seconds  usecs/call  calls  [errors]  syscall"
            if len(words) >= 5 and words[0][0].isdigit() and words[-1] != "total":
                calls[words[-1]] = int(words[3])
    os.unlink(path)
    return calls


def start_settled(command, port):
    """`benchkit.start`, then a moment for the server's start-up work to end."""
    server = start(command, port)
    time.sleep(0.3)
    return server


def measure_kith(count, syscalls, deferred):
    scratch = tempfile.mkdtemp(prefix="kith-sse-")
    port = free_port()
    # Every stream comes from 127.0.0.1: the per-address caps, which guard
    # a real server against one client, would refuse all but the first few.
    server = start_settled([KITH, "serve", "--dev", "--quiet", "--port", str(port), "--data", scratch,
                    "--max-connections-per-address", str(count + 64),
                    "--streams-per-address", str(count + 64)], port)
    try:
        cookie, token = form_token(port)
        return run(port, server.pid, count, lambda: publish(port, cookie, token), syscalls=syscalls, deferred=deferred)
    finally:
        stop(server, scratch)


def measure_floor(count, deferred):
    port = free_port()
    server = start_settled([BENCH, "sse-floor", "--port", str(port)], port)
    try:
        return run(port, server.pid, count, lambda: publish_floor(port), deferred=deferred)
    finally:
        stop(server)


def pct(values, p):
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")


def summary(r, count):
    """One run's figures, by name."""
    opened = r["opened"]
    return {
        "p50": pct(r["received"], 0.5), "p99": pct(r["received"], 0.99),
        "max": r["received"][-1] if r["received"] else float("nan"),
        "read_p50": pct(r["read"], 0.5), "read_p99": pct(r["read"], 0.99),
        "cpu": r["cpu"], "client_cpu": r["client_cpu"], "disconnect_cpu": r["disconnect_cpu"],
        "per_stream_kib": (r["held"] - r["before"]) / max(opened, 1),
        "delivered": len(r["read"]), "opened": opened, "failed": r["failed"],
        "complete": opened == count and len(r["read"]) == count and r["failed"] == 0,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", default="1000,10000")
    parser.add_argument("--runs", type=int, default=3, help="pairs of runs (Kith, then the floor); figures are medians")
    parser.add_argument("--table", action="store_true", help="also the detailed table of every run")
    parser.add_argument("--deferred-client", action="store_true",
                        help="the client reads only after the fan-out, so it takes no CPU from the server meanwhile "
                             "(delivery times come from receive timestamps either way)")
    parser.add_argument("--syscalls", action="store_true",
                        help="count the server's system calls during the publish with strace (slows it: no times)")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    deferred = args.deferred_client

    rows, table = [], []
    for count in [int(n) for n in args.streams.split(",")]:
        if args.syscalls:
            r = measure_kith(count, syscalls=True, deferred=deferred)
            calls, opened = r["calls"], max(r["opened"], 1)
            rows.append((f"{count:,} streams: server system calls per stream", f"{sum(calls.values()) / opened:.2f}", "—", None))
            for name, n in sorted(calls.items(), key=lambda kv: -kv[1])[:6]:
                rows.append((f"  {name}", f"{n} ({n / opened:.2f} per stream)", "—", None))
            continue
        kith, floor = [], []
        for _ in range(max(1, args.runs)):
            kith.append(summary(measure_kith(count, syscalls=False, deferred=deferred), count))
            floor.append(summary(measure_floor(count, deferred=deferred), count))
        for name, runs in (("kith", kith), ("floor", floor)):
            for r in runs:
                table.append(f"| {name:>5} | {count:>7} | {r['opened']:>6} | {r['delivered']:>9} | {r['read_p50']:>6.1f} | "
                             f"{r['read_p99']:>6.1f} | {r['p50']:>6.1f} | {r['p99']:>6.1f} | {r['cpu']:>7.1f} | "
                             f"{r['client_cpu']:>7.1f} | {r['per_stream_kib']:>5.2f} KiB | {r['failed']:>6} |")

        def median(runs, key):
            return statistics.median(r[key] for r in runs)
        complete = all(r["complete"] for r in kith)
        target = count == 10_000
        p99 = median(kith, "p99")
        rows.append((f"{count:,} streams: p99 publish to delivery", f"{p99:.1f} ms",
                     "≤ 50 ms" if target else "—", (complete and p99 <= 50) if target else None))
        if len(kith) > 1:
            rows.append(("  p99 of each run", ", ".join(f"{r['p99']:.1f}" for r in kith) + " ms", "—", None))
        rows.append(("  p50, max (delivery: the kernel queued it on the client's socket)",
                     f"{median(kith, 'p50'):.1f} ms, {median(kith, 'max'):.1f} ms", "—", None))
        if not deferred:
            rows.append(("  p50, p99 read by the one-thread client on the same cores",
                         f"{median(kith, 'read_p50'):.1f} ms, {median(kith, 'read_p99'):.1f} ms", "—", None))
        worst = min(kith, key=lambda r: r["delivered"])
        rows.append(("  delivered / opened / asked (worst run)", f"{worst['delivered']} / {worst['opened']} / {count}",
                     f"{count} / {count} / {count}", complete))
        rows.append(("  server CPU for the publish and fan-out", f"{median(kith, 'cpu'):.1f} ms", "—", None))
        rows.append(("  server CPU per stream", f"{median(kith, 'cpu') * 1000 / count:.1f} µs", "—", None))
        rows.append(("  client CPU meanwhile", f"{median(kith, 'client_cpu'):.1f} ms", "—", None))
        rows.append(("  server CPU for the streams' disconnections", f"{median(kith, 'disconnect_cpu'):.1f} ms", "—", None))
        rows.append(("  server RSS per stream", f"{median(kith, 'per_stream_kib'):.2f} KiB", "—", None))
        ratios = [k["p99"] / f["p99"] for k, f in zip(kith, floor) if f["p99"] > 0]
        floor_complete = all(r["complete"] for r in floor)
        rows.append((f"  floor, same run: p99 (bare fan-out, one send per stream{'' if floor_complete else ', INCOMPLETE'})",
                     f"{median(floor, 'p99'):.1f} ms", "—", None))
        rows.append(("  floor: server CPU for the publish and fan-out", f"{median(floor, 'cpu'):.1f} ms", "—", None))
        rows.append(("  Kith p99 / floor p99", f"{statistics.median(ratios):.2f}× (pairs "
                     + ", ".join(f"{x:.2f}" for x in ratios) + ")", "—", None))
    client = "client reads after the fan-out" if deferred else "client reads as events arrive"
    print_targets(f"Kith SSE fan-out — one topic, one publish, loopback, {os.cpu_count()} CPUs, {client}, "
                  f"median of {max(1, args.runs)} runs", rows)
    if args.table:
        print("\n| server | streams | opened | delivered | read p50 | read p99 | delivery p50 | delivery p99 "
              "| server CPU ms | client CPU ms | RSS/stream | errors |")
        print("|--------|---------|--------|-----------|----------|----------|--------------|--------------"
              "|---------------|---------------|------------|--------|")
        print("\n".join(table))


if __name__ == "__main__":
    main()
