#!/usr/bin/env python3
"""Kith on PostgreSQL: TechEmpower Fortunes from `kith-bench --database`
beside the same page from SQLite, and tally increments per second through
one and then two `kith serve` instances on one database, signed in, each
POST with its form token, as a browser sends them.

Runs only where PostgreSQL is installed (it starts a throwaway cluster with
Scripts/pg-cluster.sh and removes it); otherwise it says so and stops.
Every write on PostgreSQL takes one advisory lock, so the second instance
adds request handling, not write throughput: the two-instance row shows
what that costs or gains on this machine. Figures are measurements on a
shared machine, not tests.
"""
import argparse
import glob
import http.client
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from benchkit import free_port, print_targets, start_kith, stop_all, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("KITH_BUILD", os.path.join(ROOT, ".build", "release"))


def postgres_installed():
    return bool(glob.glob("/usr/lib/postgresql/*/bin/initdb")) or shutil.which("initdb") is not None


def wrk_rps(url, connections, seconds):
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", url],
                         capture_output=True, text=True, check=True).stdout
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)), int(errors.group(1)) if errors else 0


class Browser:
    """One signed-in person on one instance: a kept-alive connection and
    the cookies the server set."""

    def __init__(self, port, cookies=None):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.origin = f"http://127.0.0.1:{port}"
        self.cookies = dict(cookies or {})
        self.once = None

    def request(self, method, path, fields=None):
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        body = None
        if fields is not None:
            # A create form's once token goes with the post after its page.
            if self.once:
                fields = list(fields) + [("_once", self.once)]
                self.once = None
            body = urllib.parse.urlencode(fields).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = self.origin
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        text = response.read().decode("utf-8", "replace")
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                pair = value.split(";", 1)[0]
                key, _, cookie = pair.partition("=")
                self.cookies[key.strip()] = cookie.strip()
        return response.status, response.getheader("Location"), text

    def token(self, path):
        page = self.request("GET", path)[2]
        match = re.search(r'name="_csrf" value="([^"]+)"', page)
        if not match:
            raise RuntimeError(f"no form token on {path}")
        once = re.search(r'name="_once" value="([^"]+)"', page)
        self.once = once.group(1) if once else None
        return match.group(1)


def person(port, username):
    browser = Browser(port)
    token = browser.token("/signup")
    status, _, _ = browser.request("POST", "/signup", [
        ("_csrf", token), ("display_name", username.capitalize()), ("username", username),
        ("password", "correct horse battery"), ("time_zone", "UTC")])
    if status != 200:
        raise RuntimeError(f"sign-up of {username} answered {status}")
    token = browser.token("/tallies/new")
    status, location, text = browser.request("POST", "/tallies", [
        ("_csrf", token), ("name", "Coffee"), ("count", "0"), ("schedule", "off"), ("fireworks", "on")])
    if status != 303 or not location:
        raise RuntimeError(f"creating a tally answered {status}: {re.sub(r'<[^>]+>', ' ', text.split('<main', 1)[-1])[:600]}")
    return browser.cookies, location


def increments(ports, people, seconds):
    """Every person increments their own tally as fast as answered, through
    the instances in turn; returns (increments per second, refusals)."""
    done, refused = [0], [0]
    lock = threading.Lock()
    stop_at = time.time() + seconds

    def run(index, cookies, tally):
        browser = Browser(ports[index % len(ports)], cookies)
        token = browser.token(tally)
        count = bad = 0
        while time.time() < stop_at:
            status, _, _ = browser.request("POST", tally + "/increment", [("_csrf", token)])
            if status == 303:
                count += 1
            else:
                bad += 1
        with lock:
            done[0] += count
            refused[0] += bad

    threads = [threading.Thread(target=run, args=(i, c, t)) for i, (c, t) in enumerate(people)]
    started = time.time()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return done[0] / (time.time() - started), refused[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--people", type=int, default=8, help="signed-in people incrementing at once")
    args = parser.parse_args()
    if not postgres_installed():
        print("\nKith on PostgreSQL: skipped, PostgreSQL is not installed")
        return
    scratch = tempfile.mkdtemp(prefix="kith-bench-instances-")
    # Its own directory right under /tmp: as root the cluster belongs to an
    # unprivileged user, who must reach it.
    cluster = tempfile.mkdtemp(prefix="kith-bench-pg-")
    processes = []
    try:
        url = subprocess.run([os.path.join(ROOT, "Scripts", "pg-cluster.sh"), "start", cluster],
                             capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
        rows = []

        for label, extra in (("SQLite", ["--data", os.path.join(scratch, "bench")]), ("PostgreSQL", ["--database", url])):
            port = free_port()
            bench = subprocess.Popen([os.path.join(BUILD, "kith-bench"), "--port", str(port), "--quiet", *extra],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            processes.append(bench)
            wait_for(port)
            rps, errors = wrk_rps(f"http://127.0.0.1:{port}/fortunes", 64, args.seconds)
            rows.append((f"Fortunes from {label}, 64 connections", f"{rps:,.0f} req/s" + (f" ({errors} errors)" if errors else ""), "", None))
            stop_all([bench])
            processes.remove(bench)

        kith = os.path.join(BUILD, "kith")
        media = os.path.join(scratch, "media")
        subprocess.run([kith, "migrate", "--data", os.path.join(scratch, "data-0"), "--database", url],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        first, first_port = start_kith(kith, os.path.join(scratch, "data-1"), "--database", url, "--media", media)
        processes.append(first)
        people = [person(first_port, f"bench{i}") for i in range(args.people)]
        one, refused_one = increments([first_port], people, args.seconds)
        second, second_port = start_kith(kith, os.path.join(scratch, "data-2"), "--database", url, "--media", media)
        processes.append(second)
        two, refused_two = increments([first_port, second_port], people, args.seconds)
        for instances, rate, refused in ((1, one, refused_one), (2, two, refused_two)):
            rows.append((f"tally increments, {args.people} people, {instances} instance{'s' if instances > 1 else ''}",
                         f"{rate:,.0f} /s" + (f" ({refused} refused)" if refused else ""), "", None))
        print_targets("Kith on PostgreSQL (one throwaway cluster on this machine)", rows)
    finally:
        stop_all(processes)
        subprocess.run([os.path.join(ROOT, "Scripts", "pg-cluster.sh"), "stop", cluster],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
