#!/usr/bin/env python3
"""Kith's TLS handshake rate: `openssl s_time` against `kith serve --https-port`.

Rows: full handshakes per second (TLS 1.3, ECDHE with a P-256 certificate,
a new session every time) and resumed handshakes per second (TLS 1.2, the
session ticket from the first connection, no certificate work; s_time marks each
resumed one with `*`), each with `--clients`
s_time processes at once, and the server's CPU per handshake. The
certificate is made for the run with the `openssl` program.

Figures are medians of --runs runs on a shared machine (the clients' own
handshake work shares the CPUs with the server), not pass/fail tests.
`bench.py` prints these rows after its own; this script runs them alone.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from benchkit import cpu_ticks, free_port, print_targets, stop, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(ROOT, ".build", "release")
CLK_TCK = os.sysconf("SC_CLK_TCK")


def make_certificate(directory):
    certs = os.path.join(directory, "certs")
    os.makedirs(certs, exist_ok=True)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost", "-days", "2",
         "-keyout", os.path.join(certs, "privkey.pem"), "-out", os.path.join(certs, "fullchain.pem")],
        check=True, capture_output=True)


def s_time(port, seconds, clients, reuse, pid):
    """Handshakes per second over `clients` parallel s_time processes, and server CPU µs per handshake."""
    # s_time waits on its own round trips when it resumes TLS 1.3 (openssl
    # s_server shows the same ceiling), so resumption is measured on TLS 1.2
    # tickets, which the same keys serve.
    mode = ["-reuse", "-tls1_2"] if reuse else ["-new"]
    command = ["openssl", "s_time", "-connect", f"127.0.0.1:{port}", "-time", str(seconds), *mode]
    before = cpu_ticks(pid)
    processes = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) for _ in range(clients)]
    outputs = [p.communicate()[0] for p in processes]
    after = cpu_ticks(pid)
    total = 0
    for out in outputs:
        # "N connections in T real seconds, …"
        match = re.search(r"(\d+) connections in (\d+) real seconds", out)
        if match:
            total += int(match.group(1))
    rate = total / seconds
    cpu_us = (after - before) * 1e6 / CLK_TCK / total if total else float("nan")
    return rate, cpu_us


def run(kith, runs=3, seconds=5, clients=2):
    """Starts its own server, prints the rows, stops it."""
    if not shutil.which("openssl"):
        print("bench_tls: openssl is not installed; no TLS rows")
        return
    scratch = tempfile.mkdtemp(prefix="kith-bench-tls-")
    make_certificate(scratch)
    port, https_port = free_port(), free_port()
    process = subprocess.Popen(
        [kith, "serve", "--port", str(port), "--https-port", str(https_port), "--domain", "localhost",
         "--data", scratch, "--quiet", "--root", ROOT], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    try:
        wait_for(https_port)
        results = {"full": [], "resumed": []}
        for _ in range(runs):
            results["full"].append(s_time(https_port, seconds, clients, False, process.pid))
            results["resumed"].append(s_time(https_port, seconds, clients, True, process.pid))
        rows = []
        for name, label in (("full", "full TLS 1.3 handshakes"), ("resumed", "resumed TLS 1.2 handshakes (ticket)")):
            rate = statistics.median(r[0] for r in results[name])
            cpu = statistics.median(r[1] for r in results[name])
            rows.append((f"{label}, {clients} clients: per second", f"{rate:.0f} /s", "—", None))
            rows.append((f"{label}: server CPU", f"{cpu:.0f} µs each", "—", None))
        print_targets(f"TLS handshakes — openssl s_time, {seconds}s, median of {runs} runs, loopback, "
                      f"{os.cpu_count()} CPUs shared by server and clients (issue 21: TLS)", rows)
    finally:
        stop(process, scratch)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--kith", default=os.path.join(RELEASE, "kith"))
    args = parser.parse_args()
    if not os.path.exists(args.kith):
        sys.exit(f"bench_tls: no {args.kith} (make release)")
    run(args.kith, args.runs, args.seconds, args.clients)


if __name__ == "__main__":
    main()
