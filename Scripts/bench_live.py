#!/usr/bin/env python3
"""Live cost: N signed-in viewers of one page, one change, every viewer refreshed.

Starts `kith serve` (release build) on a scratch data directory, signs up N
real accounts through the sign-up form (each with its own session), and makes
them members of two things: one occasion (each joins with the contributor
code) and one tally (its owner befriends each and shares it with all). Every
viewer then does what a browser tab does: loads the page, reads its live
subscription (`<meta name="kith-live">` and its cursor) and its fragments
(`id` + `data-fragment`), and opens its event stream. A member makes one
change through a form post; for each viewer the clock stops when the body of
the last fragment named by the invalidation has arrived, fetched like
`app.js` does (`X-Kith-Enhanced: fragment`, the viewer's own cookie, one
keep-alive connection per viewer): fragments inside an element marked
`data-fragment-batch` are asked for in one GET (`?fragments=a,b`) when an
event names more than one of them, the others one GET each. `--single`
fetches every fragment on its own, as before batching, for comparison.

Before each change every session's last-seen time is moved back two hours,
so each viewer is due the hourly refresh a refetch used to write.

Printed beside the issue's targets: p50/p99/max per page and N, the server's
CPU per refetch GET and per viewer (from /proc, over the wave) and per
refetch GET over a steady sequential run, and SQLite's `PRAGMA data_version` seen by a separate connection right
after the change committed and after every refetch answered — equal when
the refetches wrote nothing.

Python's asyncio on the same 2 cores as the server: the client's own parsing is
inside the figures, so they are an upper bound on what the server costs.
"""
import argparse
import asyncio
import json
import os
import re
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse

from benchkit import cpu_ticks, free_port, print_targets, stop, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("KITH_BUILD", os.path.join(ROOT, ".build", "release"))
KITH = os.path.join(BUILD, "kith")
CLK_TCK = os.sysconf("SC_CLK_TCK")
TARGET_P99_MS = 250.0


class Connection:
    """One keep-alive HTTP/1.1 connection, as a browser keeps per origin."""

    def __init__(self, port):
        self.port = port
        self.reader = self.writer = None

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    async def request(self, method, path, cookies, headers=None, body=b""):
        """Sends on the kept connection; one the server closed while idle
        (its keep-alive timeout) is reopened once, as a browser does."""
        reused = self.writer is not None
        try:
            return await self.exchange(method, path, cookies, headers, body)
        except (asyncio.IncompleteReadError, ConnectionError):
            self.close()
            if not reused:
                raise
            return await self.exchange(method, path, cookies, headers, body)

    async def exchange(self, method, path, cookies, headers, body):
        if self.writer is None:
            await self.open()
        lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Origin: http://127.0.0.1:{self.port}"]
        if cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in cookies.items()))
        for name, value in (headers or {}).items():
            lines.append(f"{name}: {value}")
        if body:
            lines += ["Content-Type: application/x-www-form-urlencoded", f"Content-Length: {len(body)}"]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        response_headers = []
        length, chunked, close = 0, False, False
        for line in head.decode("latin-1").split("\r\n")[1:]:
            if ":" not in line:
                continue
            name, value = line.split(":", 1)
            name, value = name.strip().lower(), value.strip()
            response_headers.append((name, value))
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
            elif name == "connection" and value.lower() == "close":
                close = True
        if chunked:
            body = b""
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
                body += await self.reader.readexactly(size + 2)
                if size == 0:
                    break
        else:
            body = await self.reader.readexactly(length)
        for name, value in response_headers:
            if name == "set-cookie":
                pair = value.split(";", 1)[0]
                key, _, val = pair.partition("=")
                if val:
                    cookies[key] = val
                else:
                    cookies.pop(key, None)
        if close:
            self.close()
        return status, dict(response_headers), body.decode("utf-8", "replace")

    def close(self):
        if self.writer:
            self.writer.close()
        self.reader = self.writer = None


def csrf(html):
    match = re.search(r'name="_csrf" value="([^"]+)"', html)
    if not match:
        raise RuntimeError("no form token on the page")
    return match.group(1)


class Person:
    def __init__(self, port, username):
        self.port = port
        self.username = username
        self.cookies = {}
        self.conn = Connection(port)

    async def get(self, path, headers=None):
        return await self.conn.request("GET", path, self.cookies, headers)

    async def post(self, path, fields, token_from):
        _, _, page = await self.get(token_from)
        once = re.search(r'name="_once" value="([^"]+)"', page)  # forms that create carry a one-time token
        extra = [("_once", once.group(1))] if once else []
        body = urllib.parse.urlencode([("_csrf", csrf(page))] + extra + list(fields)).encode()
        return await self.conn.request("POST", path, self.cookies, body=body)

    async def sign_up(self):
        while True:
            status, _, _ = await self.post(
                "/signup", [("display_name", self.username.capitalize()), ("username", self.username),
                            ("password", "correct horse battery"), ("time_zone", "UTC")], "/signup")
            if status == 503:  # the password queue is full: wait like a person would
                await asyncio.sleep(0.2)
                continue
            if status != 200 or "kith_session" not in self.cookies:
                raise RuntimeError(f"sign-up of {self.username} answered {status}")
            return


class Viewer:
    """One open tab: its page's fragments, its event stream, its own connection."""

    def __init__(self, person, page, single=False):
        self.person = person
        self.page = page
        self.single = single
        self.fragments = {}
        # Fragment ids inside the page's batch element, and where it fetches them.
        self.batched = set()
        self.batch = None
        self.stream = None
        self.done = None
        self.fetched = 0
        self.statuses = []

    async def open(self):
        status, _, html = await self.person.get(self.page)
        if status != 200:
            raise RuntimeError(f"{self.page} answered {status}")
        meta = re.search(r'<meta name="kith-live" content="([^"]*)" data-cursor="([^"]*)"', html)
        stream_path = re.search(r'<meta name="kith-live-stream" content="([^"]*)"', html).group(1)
        batch = re.search(r'\bdata-fragment-batch="([^"]+)"', html)
        for tag in re.finditer(r"<[a-z]+\b[^>]*\bdata-fragment=\"[^\"]*\"[^>]*>", html):
            ident = re.search(r'\bid="([^"]+)"', tag.group(0))
            url = re.search(r'\bdata-fragment="([^"]+)"', tag.group(0))
            if ident:
                self.fragments[ident.group(1)] = url.group(1).replace("&amp;", "&")
                # The batch element wraps the page's main content, after the
                # navigation's own fragments: what follows it is inside.
                if batch and tag.start() > batch.start():
                    self.batched.add(ident.group(1))
        if batch and not self.single:
            self.batch = batch.group(1).replace("&amp;", "&")
        topics, cursor = meta.group(1), meta.group(2)
        reader, writer = await asyncio.open_connection("127.0.0.1", self.person.port)
        cookie = "; ".join(f"{k}={v}" for k, v in self.person.cookies.items())
        path = f"{stream_path}?topics={urllib.parse.quote(topics)}&cursor={urllib.parse.quote(cursor)}"
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nCookie: {cookie}\r\n\r\n".encode())
        head = await reader.readuntil(b"\r\n\r\n")
        if b" 200 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"stream refused: {head[:80]!r}")
        self.stream = (reader, writer)

    async def wait_and_refresh(self, quiet=0.5):
        """Reads the stream and refetches what each invalidation names, as
        `app.js` does, until it has been quiet for `quiet` seconds after one."""
        reader, _ = self.stream
        buffer = b""
        handled = False
        while True:
            try:
                chunk = await (asyncio.wait_for(reader.read(65536), quiet) if handled else reader.read(65536))
            except asyncio.TimeoutError:
                return
            if not chunk:
                raise RuntimeError("stream closed before the invalidation")
            buffer += chunk
            while b"\n\n" in buffer:
                event, buffer = buffer.split(b"\n\n", 1)
                lines = event.split(b"\n")
                if b"event: invalidate" not in lines:
                    continue
                data = next(line[6:] for line in lines if line.startswith(b"data: "))
                named = [ident for ident in json.loads(data).get("fragments", []) if ident in self.fragments]
                together = [ident for ident in named if ident in self.batched] if self.batch else []
                urls = [self.fragments[ident] for ident in named if len(together) < 2 or ident not in together]
                if len(together) >= 2:
                    urls.append(f"{self.batch}?fragments={','.join(together)}")
                for url in urls:
                    status, _, _ = await self.person.get(url, {"X-Kith-Enhanced": "fragment"})
                    self.statuses.append(status)
                    self.fetched += 1
                self.done = time.monotonic_ns()
                handled = True

    def close(self):
        if self.stream:
            self.stream[1].close()


async def bounded(items, limit, action):
    gate = asyncio.Semaphore(limit)

    async def one(item):
        async with gate:
            return await action(item)
    return await asyncio.gather(*(one(item) for item in items))


def data_version(connection):
    return connection.execute("PRAGMA data_version").fetchone()[0]


async def wave(port, pid, database, watcher, viewers, change):
    """One change, every viewer refreshed: latencies in ms, fragment GETs, CPU
    µs per fragment GET, data_version after the change and after the wave."""
    # Every viewer last did something over an hour ago, so each session is
    # due its hourly last-seen refresh: the case in which a refetch wrote.
    with sqlite3.connect(database, timeout=10) as db:
        db.execute("UPDATE sessions SET last_seen_at = last_seen_at - 7200")
    waiting = [asyncio.create_task(v.wait_and_refresh()) for v in viewers]
    await asyncio.sleep(0.2)
    ticks = cpu_ticks(pid)
    t0 = time.monotonic_ns()
    await change()
    committed = data_version(watcher)
    await asyncio.gather(*waiting)
    after = data_version(watcher)
    spent = cpu_ticks(pid) - ticks
    fetched = sum(v.fetched for v in viewers)
    latencies = sorted((v.done - t0) / 1e6 for v in viewers)
    bad = sum(1 for v in viewers for s in v.statuses if s != 200)
    per_viewer = spent * 1e6 / CLK_TCK / max(len(viewers), 1)
    return latencies, fetched, spent * 1e6 / CLK_TCK / max(fetched, 1), per_viewer, committed, after, bad


async def steady_cpu(pid, viewers, rounds):
    """CPU per fragment GET on a quiet server: each viewer fetches its page's
    fragments in turn, sequentially, `rounds` times."""
    pairs = [(v, url) for v in viewers for url in v.fragments.values()][:200]
    ticks = cpu_ticks(pid)
    count = 0
    for _ in range(rounds):
        for viewer, url in pairs:
            await viewer.person.get(url, {"X-Kith-Enhanced": "fragment"})
            count += 1
    return (cpu_ticks(pid) - ticks) * 1e6 / CLK_TCK / max(count, 1)


def pct(values, p):
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")


async def scenario(port, pid, database, counts, single):
    rows = []
    most = max(counts)
    host = Person(port, "host")
    await host.sign_up()
    people = [Person(port, f"viewer{i:04d}") for i in range(most)]
    t = time.time()
    await bounded(people, 4, lambda p: p.sign_up())
    print(f"signed up {most} people in {time.time() - t:.1f} s", file=sys.stderr)

    status, headers, text = await host.post(
        "/occasions", [("name", "Alex turns 30"), ("kind", "birthday"), ("celebrant_name", "Alex"),
                       ("date", "2026-12-12"), ("host_name", "Hana")], "/occasions/new")
    if status != 303:
        raise RuntimeError(f"creating the occasion answered {status}: {text[:300]}")
    occasion = int(re.search(r"/occasions/(\d+)", headers["location"]).group(1))
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        code = db.execute("SELECT code FROM invite_codes WHERE kind = 'occasion' AND target_id = ? AND retired_at IS NULL",
                          (occasion,)).fetchone()[0]

    async def join(person):
        status, _, _ = await person.post(f"/join/{code}", [], f"/join/{code}")
        if status != 303:
            raise RuntimeError(f"joining answered {status}")
    await bounded(people, 8, join)

    for person in people:
        status, _, _ = await host.post("/friends", [("username", person.username)], "/friends")
        if status != 303:
            raise RuntimeError(f"befriending answered {status}")
    user_ids = {}
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        for username, ident in db.execute("SELECT username, id FROM users"):
            user_ids[username] = ident
    fields = [("name", "Coffee"), ("count", "0"), ("schedule", "off"), ("fireworks", "on")]
    fields += [(f"share-{user_ids[p.username]}", "edit") for p in people]
    status, headers, _ = await host.post("/tallies", fields, "/tallies/new")
    tally = int(re.search(r"/tallies/(\d+)", headers["location"]).group(1))

    async def add_challenge():
        status, _, _ = await host.post(f"/occasions/{occasion}/host/challenges",
                                       [("title", f"Sing {time.time_ns()}"), ("description", "Loudly."), ("option_b", ""),
                                        ("points", "10"), ("difficulty", "medium"), ("category", "social")],
                                       f"/occasions/{occasion}/host")
        assert status == 303, status

    async def increment():
        status, _, _ = await host.post(f"/tallies/{tally}/increment", [], f"/tallies/{tally}")
        assert status == 303, status

    watcher = sqlite3.connect(f"file:{database}?mode=ro", uri=True, isolation_level=None)
    pages = [("occasion page", f"/occasions/{occasion}", add_challenge), ("shared tally", f"/tallies/{tally}", increment)]
    for title, path, change in pages:
        for count in counts:
            viewers = [Viewer(person, path, single) for person in people[:count]]
            await bounded(viewers, 16, lambda v: v.open())
            latencies, fetched, cpu, per_viewer, committed, after, bad = await wave(port, pid, database, watcher, viewers, change)
            steady = await steady_cpu(pid, viewers, 3)
            for v in viewers:
                v.close()
            print(f"{title}, N={count}: {fetched} refetch GETs, {bad} not 200, "
                  f"p50 {pct(latencies, 0.5):.1f} ms", file=sys.stderr)
            rows += [
                (f"{title}, N={count}: every viewer refreshed, p50", f"{pct(latencies, 0.5):.1f} ms", "—", None),
                (f"{title}, N={count}: p99", f"{pct(latencies, 0.99):.1f} ms", f"≤ {TARGET_P99_MS:.0f} ms" if count >= 500 else "—",
                 pct(latencies, 0.99) <= TARGET_P99_MS if count >= 500 else None),
                (f"{title}, N={count}: max", f"{latencies[-1]:.1f} ms", "—", None),
                (f"{title}, N={count}: refetch GETs (not 200)", f"{fetched} ({bad})", "0 not 200", bad == 0),
                (f"{title}, N={count}: server CPU per refetch GET, wave", f"{cpu:.0f} µs", "—", None),
                (f"{title}, N={count}: server CPU per viewer, wave", f"{per_viewer:.0f} µs", "≤ 1000 µs",
                 per_viewer <= 1000 if count >= 500 else None),
                (f"{title}, N={count}: server CPU per fragment GET, steady", f"{steady:.0f} µs", "—", None),
                (f"{title}, N={count}: data_version after change → after wave", f"{committed} → {after}", "unchanged",
                 committed == after),
            ]
    watcher.close()
    for person in [host] + people:
        person.conn.close()
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--viewers", default="100,500")
    parser.add_argument("--single", action="store_true", help="fetch each fragment on its own, as before batching")
    args = parser.parse_args()
    counts = [int(n) for n in args.viewers.split(",")]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    scratch = tempfile.mkdtemp(prefix="kith-live-")
    port = free_port()
    most = max(counts)
    # Every viewer comes from 127.0.0.1, so the per-address fair shares are
    # raised to fit N people; nothing else is changed.
    server = subprocess.Popen(
        [KITH, "serve", "--quiet", "--port", str(port), "--data", scratch,
         "--accounts-per-hour", str(most + 10), "--streams-per-address", str(most + 10),
         "--max-connections-per-address", str(3 * most + 50)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    try:
        wait_for(port)
        rows = asyncio.run(scenario(port, server.pid, os.path.join(scratch, "kith.sqlite"), counts, args.single))
        mode = "one GET per fragment" if args.single else "fragments of a page in one GET"
        print_targets(f"Kith live cost — N viewers, one change, {mode}, loopback, {os.cpu_count()} CPUs shared with the client", rows)
    finally:
        stop(server, scratch)


if __name__ == "__main__":
    main()
