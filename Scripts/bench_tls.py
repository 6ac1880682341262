#!/usr/bin/env python3
"""Kith over HTTPS: the TLS handshake rate (`openssl s_time`), and HTTP/2
static files against nginx (`h2load`, same files, same certificate, same run).

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


def nginx_tls_config(directory, port, certs):
    """bench.py's nginx, listening with TLS and HTTP/2 on the run's certificate."""
    import bench  # late: bench imports this module
    plain = f"listen 127.0.0.1:{port} reuseport;"
    config = bench.nginx_config(directory, port, bench.PUBLIC)
    assert plain in config
    # nginx 1.22 (Debian 12) turns HTTP/2 on in `listen`; `http2 on;` came in 1.25.
    return config.replace(plain, f"""listen 127.0.0.1:{port} ssl http2 reuseport;
        ssl_certificate {certs}/fullchain.pem;
        ssl_certificate_key {certs}/privkey.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_tickets on;""")


def h2load(url, connections, streams, seconds, pid):
    """Requests per second over HTTP/2 (ALPN h2), the server's CPU µs per request, and failures."""
    before = cpu_ticks(pid) if pid else 0
    out = subprocess.run(
        ["h2load", "-D", str(seconds), "-c", str(connections), "-m", str(streams), "-t", "2", url],
        capture_output=True, text=True).stdout
    after = cpu_ticks(pid) if pid else 0
    rate = re.search(r"finished in [\d.]+\w*, ([\d.]+) req/s", out)
    done = re.search(r"(\d+) succeeded, (\d+) failed", out)
    protocol = re.search(r"Application protocol: (\S+)", out)
    if not rate or not done or not protocol or protocol.group(1) != "h2":
        raise RuntimeError(f"h2load did not speak h2 to {url}:\n{out[-800:]}")
    succeeded = int(done.group(1))
    cpu_us = (after - before) * 1e6 / CLK_TCK / succeeded if pid and succeeded else float("nan")
    return float(rate.group(1)), cpu_us, int(done.group(2))


def h2_rows(kith_port, kith_pid, scratch, runs, seconds, connections=64, streams=10):
    """Kith and nginx serving the same two files over HTTPS + HTTP/2."""
    import bench
    if not shutil.which("h2load") or not shutil.which("nginx"):
        print("bench_tls: h2load or nginx is not installed; no HTTP/2 rows")
        return
    nginx_port = free_port()
    config = os.path.join(scratch, "nginx-tls.conf")
    with open(config, "w") as f:
        f.write(nginx_tls_config(scratch, nginx_port, os.path.join(scratch, "certs")))
    nginx = subprocess.Popen(["nginx", "-c", config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(nginx_port)
        rows = []
        for asset in bench.static_assets():
            size = os.path.getsize(os.path.join(bench.PUBLIC, asset)) / 1024
            kith_runs, nginx_runs = [], []
            for _ in range(runs):
                kith_runs.append(h2load(f"https://127.0.0.1:{kith_port}{bench.hashed_url(asset)}", connections, streams, seconds, kith_pid))
                nginx_runs.append(h2load(f"https://127.0.0.1:{nginx_port}/{asset}", connections, streams, seconds, None))
            kith_rate = statistics.median(r[0] for r in kith_runs)
            nginx_rate = statistics.median(r[0] for r in nginx_runs)
            failures = sum(r[2] for r in kith_runs + nginx_runs)
            label = f"{os.path.basename(asset)} {size:.1f} KB, h2, {connections} conns × {streams} streams"
            rows.append((f"{label}: kith", f"{kith_rate:.0f} req/s, {statistics.median(r[1] for r in kith_runs):.1f} µs CPU/req", "—", None))
            rows.append((f"{label}: nginx", f"{nginx_rate:.0f} req/s", "—", None))
            # Each Kith run is followed by nginx's, so a pair shares whatever
            # else the machine was doing; the median pair is the figure, and
            # every pair is printed so the spread is in view.
            ratios = [k[0] / n[0] for k, n in zip(kith_runs, nginx_runs)]
            ratio = statistics.median(ratios)
            spread = ", ".join(f"{r:.2f}" for r in ratios)
            rows.append((f"{label}: kith/nginx", f"{ratio:.2f}× (pairs {spread})", "≥ 1.0×", ratio >= 1.0 and failures == 0))
        print_targets(f"HTTPS + HTTP/2 static files against nginx, same run — h2load -t2, {seconds}s, median of {runs} runs "
                      "(issue 21: Benchmark)", rows)
    finally:
        stop(nginx)


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
        # Five pairs at least: h2load against either server varies by ±15% run to run here.
        h2_rows(https_port, process.pid, scratch, max(runs, 5), seconds)
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
