#!/usr/bin/env python3
"""Kith as its data grows: figures, not tests.

Starts the release build (`kith serve --dev`, for the statement counter's
route) on a fresh data directory, seeds it through the real forms over HTTP
(sign-ups, CSRF tokens, the same posts a browser makes), then renders three
pages each in a small and a grown case, one connection at a time:

- an occasion's timeline: a handful of entries, and 500;
- the dashboard: 3 tallies, and 300;
- a plate game's board: 2 players with 10 spots, and 12 players with 600.

For each it prints the median render time (of --requests requests, one
keep-alive connection), the server's CPU time per request (from /proc), the
cost of each extra row, and the SQL statements one render runs, which must
not grow with the rows. Timings on a shared machine are noisy; the
statement counts are not.
"""
import argparse
import http.client
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlencode

from benchkit import cpu_ticks, print_targets, start_kith

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KITH = os.path.join(ROOT, ".build", "release", "kith")
US_STATES = (
    "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ "
    "NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY").split()


class Browser:
    """One person's cookies over one keep-alive connection."""

    def __init__(self, port):
        self.port = port
        self.cookies = {}
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def request(self, method, path, fields=None):
        headers = {"Origin": f"http://127.0.0.1:{self.port}"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if fields is not None:
            body = urlencode(fields)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        for attempt in range(2):
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
                break
            except (http.client.HTTPException, OSError):
                # The server closed an idle keep-alive connection: open another.
                self.connection.close()
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                if attempt:
                    raise
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                key, _, rest = value.split(";", 1)[0].partition("=")
                self.cookies[key] = rest
        return response.status, response.getheader("Location"), data

    def get(self, path):
        return self.request("GET", path)

    def quick_post(self, path, fields, csrf):
        """Posts with a known CSRF token and a fresh once token, read from
        the lightest page that carries one (tokens are the person's, not
        the form's), so seeding does not render a growing page each time."""
        _, _, page = self.get("/tallies/new")
        fields = dict(fields, _csrf=csrf, _once=re.search(rb'name="_once" value="([^"]+)"', page).group(1).decode())
        status, _, body = self.request("POST", path, fields)
        if status >= 400:
            raise RuntimeError(f"POST {path} answered {status}: {body[:300]!r}")

    def post(self, path, fields, form_page):
        """Posts as a browser posts the form on `form_page`: its CSRF and once tokens."""
        _, _, page = self.get(form_page)
        fields = dict(fields)
        csrf = re.search(rb'name="_csrf" value="([^"]+)"', page)
        once = re.search(rb'name="_once" value="([^"]+)"', page)
        if csrf:
            fields["_csrf"] = csrf.group(1).decode()
        if once:
            fields["_once"] = once.group(1).decode()
        status, location, body = self.request("POST", path, fields)
        if status >= 400:
            raise RuntimeError(f"POST {path} answered {status}: {body[:300]!r}")
        return status, location


def sign_up(port, username):
    browser = Browser(port)
    browser.post("/signup", {"display_name": username.capitalize(), "username": username,
                             "password": "correct horse battery", "time_zone": "UTC"}, "/signup")
    return browser


def start(kith, data):
    return start_kith(kith, data, "--dev")


def statements_run(browser):
    _, _, body = Browser(browser.port).get("/styleguide/statements")
    return int(body.decode().strip())


def measure(proc, browser, path, requests):
    """Median milliseconds, server CPU µs per request, statements per render."""
    for _ in range(5):
        browser.get(path)
    # The counter's own route runs no statement; one render between two
    # reads of it is the page's count. Fewest of three, in case a
    # background task ran meanwhile.
    counts = []
    for _ in range(3):
        before = statements_run(browser)
        browser.get(path)
        counts.append(statements_run(browser) - before)
    times = []
    ticks = cpu_ticks(proc.pid)
    for _ in range(requests):
        start = time.perf_counter()
        status, _, _ = browser.get(path)
        times.append(time.perf_counter() - start)
        if status != 200:
            raise RuntimeError(f"GET {path} answered {status}")
    cpu = (cpu_ticks(proc.pid) - ticks) / os.sysconf("SC_CLK_TCK")
    return statistics.median(times) * 1000, cpu / requests * 1e6, min(counts)


def seed_occasion(port, host, entries):
    _, location = host.post("/occasions", {"name": f"Party of {entries}", "kind": "birthday", "celebrant_name": "Alex",
                                           "date": "2026-12-12", "host_name": "Hana"}, "/occasions/new")
    base = location.rstrip("/")
    base = "/occasions/" + re.search(r"/occasions/(\d+)", base).group(1)
    # The token is the session's: one read of the panel serves every post.
    _, _, page = host.get(base + "/host")
    csrf = re.search(rb'name="_csrf" value="([^"]+)"', page).group(1).decode()
    for index in range(entries):
        host.quick_post(base + "/host/points", {"delta": str(index % 5 + 1), "reason": f"Round {index}"}, csrf)
    return base + "/timeline"


def seed_tallies(port, person, count):
    _, _, page = person.get("/tallies/new")
    csrf = re.search(rb'name="_csrf" value="([^"]+)"', page).group(1).decode()
    for index in range(count):
        person.quick_post("/tallies", {"name": f"Tally {index}", "count": str(index), "schedule": "off"}, csrf)
    return "/"


def seed_game(port, players, spots_each, prefix):
    people = [sign_up(port, f"{prefix}{index}") for index in range(players)]
    _, location = people[0].post("/games", {"name": "Road trip", "mode": "competitive"}, "/games/new")
    game = re.search(r"/games/(\d+)", location).group(1)
    code = None
    _, _, panel = people[0].get(f"/games/{game}/players")
    m = re.search(rb'/join/([A-Za-z0-9_-]+)', panel)
    code = m.group(1).decode()
    for person in people[1:]:
        person.post(f"/join/{code}", {}, f"/join/{code}")
    for person in people:
        _, _, page = person.get(f"/games/{game}")
        csrf = re.search(rb'name="_csrf" value="([^"]+)"', page).group(1).decode()
        for state in US_STATES[:spots_each]:
            person.quick_post(f"/games/{game}/spots", {"state": state, "from": "board"}, csrf)
    return people[0], f"/games/{game}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=200, help="renders per page and case")
    parser.add_argument("--kith", default=KITH, help="the server to run (the release build unless told)")
    args = parser.parse_args()
    if not os.path.exists(args.kith):
        sys.exit(f"{args.kith} is missing: build it with `swift build -c release --static-swift-stdlib`")

    with tempfile.TemporaryDirectory() as data:
        proc, port = start(args.kith, data)
        try:
            began = time.time()
            host = sign_up(port, "hana")
            small_timeline = seed_occasion(port, host, 5)
            large_timeline = seed_occasion(port, host, 500)
            few = sign_up(port, "few")
            seed_tallies(port, few, 3)
            many = sign_up(port, "many")
            seed_tallies(port, many, 300)
            small_owner, small_game = seed_game(port, 2, 5, "duo")
            large_owner, large_game = seed_game(port, 12, 50, "crew")
            seeded = time.time() - began

            cases = [
                ("occasion timeline", "entry", 5, 500, (host, small_timeline), (host, large_timeline)),
                ("dashboard", "tally", 3, 300, (few, "/"), (many, "/")),
                ("plate game board", "spot", 10, 600, (small_owner, small_game), (large_owner, large_game)),
            ]
            rows = [("seeding (sign-ups, posts)", f"{seeded:.1f} s", "< 60 s", seeded < 60)]
            plural = {"entry": "entries", "tally": "tallies", "spot": "spots"}
            for name, unit, small_rows, large_rows, small, large in cases:
                small_ms, small_cpu, small_statements = measure(proc, small[0], small[1], args.requests)
                large_ms, large_cpu, large_statements = measure(proc, large[0], large[1], args.requests)
                per_row = (large_cpu - small_cpu) / (large_rows - small_rows)
                rows += [
                    (f"{name}, {small_rows} {plural[unit]}: median", f"{small_ms:.2f} ms", "", None),
                    (f"{name}, {large_rows} {plural[unit]}: median", f"{large_ms:.2f} ms", "", None),
                    (f"{name}: server CPU, small / grown", f"{small_cpu:.0f} / {large_cpu:.0f} µs", "", None),
                    (f"{name}: CPU per extra {unit}", f"{per_row:.1f} µs/row", "", None),
                    (f"{name}: statements, small / grown", f"{small_statements} / {large_statements}", "constant",
                     small_statements == large_statements),
                ]
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    print_targets("Growth: render cost as rows grow (release build, one connection)", rows)


if __name__ == "__main__":
    main()
