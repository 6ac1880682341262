#!/usr/bin/env python3
"""The request path's cost in figures that do not depend on machine load:
user-space instructions and heap allocations per request, counted by
valgrind's callgrind in the release `kith-bench` serving a 4 KB static file
(push.js from Public/, through the same StaticFiles as `kith serve`), the
plaintext route and Fortunes.

Each route gets --warmup keep-alive requests, then callgrind counts the next
--requests on one connection (instrumentation switched on and off around
them with callgrind_control, so start-up and precompression are left out).
Wall-clock throughput is bench.py's and bench_app.py's business; these are
what to compare between two builds on a busy machine.
"""
import argparse
import hashlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from benchkit import free_port, print_targets

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("KITH_BUILD", os.path.join(ROOT, ".build", "release"))
PUBLIC = os.path.join(ROOT, "Public")

# Instructions per request of the build before the request path was worked
# on, measured the same way, printed beside each row; not targets of the
# issue. (That build's kith-bench could not serve static files: `kith serve`
# measured 39.7k for the same file then.)
BEFORE = {"static": None, "plaintext": 27_241, "fortunes": 125_571}


def hashed_path(asset):
    with open(os.path.join(PUBLIC, asset), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:10]
    stem, dot, ext = asset.rpartition(".")
    return f"/static/{stem}.{digest}.{ext}"


def request_loop(port, path, count):
    """`count` keep-alive GETs on one connection, each answer read whole."""
    request = f"GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode()
    with socket.create_connection(("127.0.0.1", port)) as s:
        buffer = b""
        for _ in range(count):
            s.sendall(request)
            while True:
                end = buffer.find(b"\r\n\r\n")
                if end >= 0:
                    head = buffer[:end].decode("latin-1")
                    if not head.startswith("HTTP/1.1 200"):
                        raise RuntimeError(f"{path}: {head.splitlines()[0]}")
                    length = int(re.search(r"(?im)^content-length:\s*(\d+)", head).group(1))
                    if len(buffer) >= end + 4 + length:
                        buffer = buffer[end + 4 + length:]
                        break
                data = s.recv(65536)
                if not data:
                    raise RuntimeError("connection closed")
                buffer += data


def wait_until_serving(port, path, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            request_loop(port, path, 1)
            return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"kith-bench did not answer {path} within {timeout} s")


def calls_to(profile, names):
    """Sums callgrind's `calls=` lines whose callee is one of `names`."""
    ids, totals, callee = {}, dict.fromkeys(names, 0), None
    with open(profile, errors="replace") as f:
        for line in f:
            m = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?", line)
            if m:
                kind, ident, name = m.groups()
                if name:
                    ids[ident] = name.strip()
                if kind == "cfn":
                    callee = ids.get(ident)
                continue
            m = re.match(r"calls=(\d+)", line)
            if m and callee in totals:
                totals[callee] += int(m.group(1))
    return totals


def measure(name, path, args, scratch, extra=()):
    port = free_port()
    out = os.path.join(scratch, f"callgrind.{name}")
    # Valgrind 3.19 gives up on the DWARF 5 the toolchain writes; the
    # symbol table alone names every function, so profile a copy without it.
    binary = os.path.join(scratch, "kith-bench")
    if not os.path.exists(binary):
        subprocess.run(["objcopy", "--strip-debug", os.path.join(BUILD, "kith-bench"), binary], check=True)
    server = subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
         binary, "--quiet", "--port", str(port),
         "--data", os.path.join(scratch, name), *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    try:
        wait_until_serving(port, path, timeout=600)
        request_loop(port, path, args.warmup)
        control = lambda *flags: subprocess.run(["callgrind_control", *flags, str(server.pid)],
                                                capture_output=True, check=True)
        control("-i", "on")
        request_loop(port, path, args.requests)
        control("-i", "off")
        control("-d")
    finally:
        server.terminate()
        server.wait(timeout=120)
    profile = f"{out}.1"
    with open(profile, errors="replace") as f:
        total = int(re.search(r"^totals:\s*(\d+)", f.read(), re.M).group(1))
    calls = calls_to(profile, ["malloc", "sendmsg", "read", "epoll_wait"])
    return {"instructions": total / args.requests,
            **{k: v / args.requests for k, v in calls.items()}}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--keep", metavar="DIR", help="copy the callgrind profiles to DIR (for callgrind_annotate)")
    parser.add_argument("--only", choices=["static", "plaintext", "fortunes"], help="profile one route")
    args = parser.parse_args()
    for tool in ("valgrind", "callgrind_control"):
        if not shutil.which(tool):
            sys.exit(f"bench_requestpath: {tool} is not installed")
    scratch = tempfile.mkdtemp(prefix="kith-bench-path-")
    try:
        routes = [
            ("static", "4 KB static (push.js)", hashed_path("js/push.js"), ("--public", PUBLIC)),
            ("plaintext", "plaintext", "/plaintext", ()),
            ("fortunes", "Fortunes", "/fortunes", ()),
        ]
        rows = []
        for key, label, path, extra in routes:
            if args.only and key != args.only:
                continue
            figures = measure(key, path, args, scratch, extra)
            rows.append((f"{label}: instructions per request", f"{figures['instructions']:,.0f}",
                         f"was {BEFORE[key]:,}" if BEFORE[key] else "—", None))
            rows.append((f"  mallocs per request", f"{figures['malloc']:.1f}", "—", None))
            rows.append((f"  syscalls: read / sendmsg / epoll_wait", f"{figures['read']:.2f} / "
                         f"{figures['sendmsg']:.2f} / {figures['epoll_wait']:.2f}", "—", None))
        print_targets(f"Request path — callgrind, kith-bench release build, {args.requests} keep-alive "
                      f"requests on one connection after {args.warmup} unmeasured", rows)
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            for name in os.listdir(scratch):
                if name.startswith("callgrind."):
                    shutil.copy(os.path.join(scratch, name), args.keep)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
