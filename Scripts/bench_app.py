#!/usr/bin/env python3
"""The engine's figures: plaintext and Fortunes from `kith-bench`, the landing
page from `kith`, and `kith serve`'s resident memory right after start and
after a minute idle, with a table of where the latter goes (from
/proc/PID/smaps).

Throughput is wrk -t2 against the release build, the median of --runs runs,
with the server's CPU time per request read from /proc beside it: on a
shared machine requests per second move with the load, CPU per request much
less. Figures are measurements, not tests.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchkit import cpu_ticks, free_port, print_targets, rss_kib, start, stop_all

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("KITH_BUILD", os.path.join(ROOT, ".build", "release"))
CLK_TCK = os.sysconf("SC_CLK_TCK")

FORTUNES_TARGET = 50_000
IDLE_RSS_TARGET_MIB = 12.5
# Past the slowest frequent background task (the undo sweep, every 60 s):
# an idle server's memory once every periodic task has run again, bringing
# back the code it needs.
STEADY_AFTER_SECONDS = 65


def to_ms(text):
    value = float(re.match(r"[\d.]+", text).group())
    for suffix, scale in (("us", 1e-3), ("ms", 1.0), ("s", 1e3)):
        if text.endswith(suffix):
            return value * scale
    return value


def wrk(url, connections, seconds, pid):
    before = cpu_ticks(pid)
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", url],
                         capture_output=True, text=True, check=True).stdout
    after = cpu_ticks(pid)
    total = int(re.search(r"(\d+) requests in", out).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p99": to_ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1)),
        "cpu": (after - before) * 1e6 / CLK_TCK / total if total else float("nan"),
        "errors": int(errors.group(1)) if errors else 0,
    }


def smaps(pid):
    """(start, end, perms, path, rss KiB) for every mapping of the process."""
    mappings, current = [], None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$", line)
            if head:
                current = [int(head.group(1), 16), int(head.group(2), 16), head.group(3), head.group(4).strip(), 0]
                mappings.append(current)
            elif line.startswith("Rss:") and current:
                current[4] = int(line.split()[1])
    return mappings


def rss_breakdown(pid, binary):
    """Resident KiB by what the memory is. Anonymous mappings are told apart
    by shape: a thread stack sits right above a one-page guard, a malloc
    arena is a 64 MiB reservation (its unused tail mapped PROT_NONE)."""
    mappings = smaps(pid)
    groups = {}

    def add(name, kib):
        groups[name] = groups.get(name, 0) + kib

    for i, (start, end, perms, path, rss) in enumerate(mappings):
        if path == binary or path.endswith("/" + os.path.basename(binary)):
            kind = {"r-x": "binary: code", "r--": "binary: read-only data"}.get(perms[:3], "binary: data")
            add(kind, rss)
        elif path == "[heap]":
            add("malloc: main heap", rss)
        elif path == "[stack]":
            add("main thread stack", rss)
        elif path.startswith("["):
            add("kernel ([vdso], [vvar])", rss)
        elif "libsqlite3" in path:
            add("libsqlite3", rss)
        elif "libssl" in path or "libcrypto" in path:
            add("libssl, libcrypto", rss)
        elif re.search(r"/(libc|libm|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so", path):
            add("libc, libm, libstdc++, ld.so", rss)
        elif path:
            add("other libraries and files", rss)
        else:
            previous = mappings[i - 1] if i else None
            next_ = mappings[i + 1] if i + 1 < len(mappings) else None
            guard_below = previous and previous[1] == start and previous[2].startswith("---") and not previous[3]
            if guard_below and previous[1] - previous[0] <= 64 * 1024 and end - start >= 1 << 20:
                add("thread stacks", rss)
            elif next_ and next_[0] == end and next_[2].startswith("---") and not next_[3] \
                    and (next_[1] - start) % (64 << 20) == 0:
                add("malloc: thread arenas", rss)
            else:
                add("other anonymous", rss)
    return groups


def rollup(pid):
    """smaps_rollup's totals in KiB: Rss, Anonymous, Private_Dirty, ..."""
    totals = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[2] == "kB":
                totals[parts[0].rstrip(":")] = int(parts[1])
    return totals


def shared_libraries(pid):
    """The shared objects mapped into the process, by path."""
    paths = set()
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            fields = line.split(None, 5)
            if len(fields) == 6 and ".so" in os.path.basename(fields[5].strip()):
                paths.add(fields[5].strip())
    return sorted(paths)


def wait_for_idle(pid, settle=1.0, timeout=20.0):
    """RSS in KiB once start-up is over: listening comes before the last of
    start-up's work on a loaded machine, so wait until neither the RSS nor
    the thread count has moved for `settle` seconds."""
    deadline = time.time() + timeout
    last, since = None, time.time()
    while time.time() < deadline:
        now = (rss_kib(pid), thread_count(pid))
        if now != last:
            last, since = now, time.time()
        elif time.time() - since >= settle:
            break
        time.sleep(0.1)
    return rss_kib(pid)


def thread_count(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"^Threads:\s+(\d+)", f.read(), re.M).group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--rss-only", action="store_true", help="only the idle memory figures")
    args = parser.parse_args()
    if not args.rss_only and not shutil.which("wrk"):
        sys.exit("bench_app: wrk is not installed (make bench installs it)")

    scratch = tempfile.mkdtemp(prefix="kith-bench-app-")
    processes = []
    try:
        kith_binary = os.path.join(BUILD, "kith")
        kith_port = free_port()
        started = time.time()
        kith = start([kith_binary, "serve", "--quiet", "--port", str(kith_port),
                      "--data", os.path.join(scratch, "kith")], kith_port)
        processes.append(kith)
        idle_rss = wait_for_idle(kith.pid)
        time.sleep(max(0.0, started + STEADY_AFTER_SECONDS - time.time()))
        steady_rss = rss_kib(kith.pid)
        breakdown = rss_breakdown(kith.pid, kith_binary)
        threads = thread_count(kith.pid)
        libraries = shared_libraries(kith.pid)
        totals = rollup(kith.pid)

        rows = []
        if not args.rss_only:
            bench_port = free_port()
            bench = start([os.path.join(BUILD, "kith-bench"), "--quiet", "--port", str(bench_port),
                           "--data", os.path.join(scratch, "bench")], bench_port)
            processes.append(bench)
            targets = [
                ("plaintext (kith-bench)", f"http://127.0.0.1:{bench_port}/plaintext", bench.pid, None),
                # Read-only, so it runs on the event loop (Route.runsInline)...
                ("Fortunes (kith-bench), handler on the loop", f"http://127.0.0.1:{bench_port}/fortunes", bench.pid,
                 FORTUNES_TARGET),
                # ...and the same handler across the hop to a worker, as Kith's pages run.
                ("Fortunes (kith-bench), handler on a worker", f"http://127.0.0.1:{bench_port}/fortunes/worker",
                 bench.pid, None),
                ("landing page (kith)", f"http://127.0.0.1:{kith_port}/", kith.pid, None),
            ]
            results = {name: [] for name, *_ in targets}
            for _ in range(args.runs):
                for name, url, pid, _ in targets:
                    results[name].append(wrk(url, args.connections, args.seconds, pid))
            c = args.connections
            for name, _, _, target in targets:
                med = lambda key: statistics.median(r[key] for r in results[name])
                errors = sum(r["errors"] for r in results[name])
                rows.append((f"{name}, {c} conns", f"{med('rps'):,.0f} req/s",
                             f"≥ {target:,} req/s" if target else "—", med("rps") >= target if target else None))
                rows.append((f"  server CPU per request", f"{med('cpu'):.1f} µs", "—", None))
                rows.append((f"  p99 latency", f"{med('p99'):.2f} ms", "—", None))
                if errors:
                    rows.append((f"  non-2xx responses", str(errors), "0", False))
        rows.append(("kith serve idle RSS after start", f"{idle_rss / 1024:.1f} MiB",
                     f"≤ {IDLE_RSS_TARGET_MIB} MiB", idle_rss / 1024 <= IDLE_RSS_TARGET_MIB))
        rows.append((f"kith serve idle RSS {STEADY_AFTER_SECONDS} s after start (every sweep has run again)",
                     f"{steady_rss / 1024:.1f} MiB", f"≤ {IDLE_RSS_TARGET_MIB} MiB",
                     steady_rss / 1024 <= IDLE_RSS_TARGET_MIB))
        if not args.rss_only:
            # Start-up code is let go once serving (kith_release_startup_code);
            # this is what the code the pages run brings back.
            rows.append(("  RSS after the landing-page runs above", f"{rss_kib(kith.pid) / 1024:.1f} MiB", "—", None))
        # The part of RSS that is the process's own: the rest is clean pages of
        # the binary and libraries, shared with the page cache.
        rows.append(("  of which anonymous (heap, stacks, data)", f"{totals.get('Anonymous', 0) / 1024:.1f} MiB", "—", None))
        # libvips and its hundred-odd libraries live only in kith-photos, run per photo.
        rows.append(("  shared libraries mapped", str(len(libraries)), "—", None))
        rows.append(("  kith binary size", f"{os.path.getsize(kith_binary) / 1048576:.1f} MiB", "—", None))
        print_targets(f"Kith engine — wrk -t2, {args.seconds}s, median of {args.runs} runs, loopback, "
                      f"{os.cpu_count()} CPUs shared by server and wrk", rows)

        print(f"\nWhere the idle RSS goes {STEADY_AFTER_SECONDS} s after start ({threads} threads), "
              f"from /proc/{kith.pid}/smaps\n")
        width = max(len(name) for name in breakdown)
        print(f"| {'mapping':<{width}} | {'RSS KiB':>8} |")
        print(f"|{'-' * (width + 2)}|----------|")
        for name, kib in sorted(breakdown.items(), key=lambda item: -item[1]):
            print(f"| {name:<{width}} | {kib:>8} |")
        print(f"| {'total':<{width}} | {sum(breakdown.values()):>8} |")
    finally:
        stop_all(processes)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
