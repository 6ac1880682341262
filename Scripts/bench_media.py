#!/usr/bin/env python3
"""Right-sized photos: what a 375 px phone fetches for a gift of ten 12 MP
photos, and what making their variants costs the server.

Starts the release build on a fresh data directory, signs up a host and a
friend, and has the friend upload ten 4000 x 3000 JPEGs (a gradient under
noise at several scales, made here with libvips through ctypes, so they
weigh what camera photos do) to their gift. Then:

- variant making: server CPU seconds (from /proc, so a busy machine does not
  inflate it) from the upload until every photo's variants are made, per
  photo; it includes receiving, checking and storing each upload;
- bytes: the gift page as a 375 px phone at 3 device pixels per CSS pixel
  fetches it with every photo scrolled into view: the document, its
  stylesheets and scripts, and for each photo the candidate the browser's
  srcset rules pick (the smallest WebP at least `sizes` x 3 pixels wide),
  each fetched here and counted. Before variants, the page sent the originals.
  The browser test PhotoVariantBrowserTests measures the same in Chromium.

    python3 Scripts/bench_media.py [--kith .build/release/kith] [--photos 10]
"""
import argparse
import ctypes
import ctypes.util
import http.client
import os
import re
import sqlite3
import subprocess
import tempfile
import time
import urllib.parse
import uuid

from benchkit import cpu_seconds, print_targets, start_kith

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sample_photos(directory, count, width=4000, height=3000):
    """The same recipe as the tests' SamplePhotos (Sources/CVips/shim.h)."""
    vips = ctypes.CDLL(ctypes.util.find_library("vips") or "libvips.so.42")
    vips.vips_init(b"bench")
    vips.vips_error_buffer.restype = ctypes.c_void_p
    P = ctypes.c_void_p

    def image():
        return P()

    def call(name, *args):
        if getattr(vips, name)(*args, None) != 0:
            raise RuntimeError(f"{name} failed: {ctypes.string_at(vips.vips_error_buffer()).decode()}")

    def noise(w, h, sigma):
        out = image()
        call("vips_gaussnoise", ctypes.byref(out), ctypes.c_int(w), ctypes.c_int(h),
             b"mean", ctypes.c_double(0), b"sigma", ctypes.c_double(sigma))
        return out

    def binary(name, a, b):
        out = image()
        call(name, a, b, ctypes.byref(out))
        return out

    def blobs(scale, sigma):
        w, h = -(-width // scale), -(-height // scale)
        bands = (P * 3)(*[noise(w, h, sigma) for _ in range(3)])
        joined, large, out = image(), image(), image()
        call("vips_bandjoin", bands, ctypes.byref(joined), ctypes.c_int(3))
        call("vips_resize", joined, ctypes.byref(large), ctypes.c_double(scale))
        call("vips_crop", large, ctypes.byref(out), ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(width), ctypes.c_int(height))
        return out

    paths = []
    for index in range(count):
        xyz, x, y = image(), image(), image()
        call("vips_xyz", ctypes.byref(xyz), ctypes.c_int(width), ctypes.c_int(height))
        call("vips_extract_band", xyz, ctypes.byref(x), ctypes.c_int(0))
        call("vips_extract_band", xyz, ctypes.byref(y), ctypes.c_int(1))
        channels = [image(), image(), image()]
        call("vips_linear1", x, ctypes.byref(channels[0]), ctypes.c_double(255 / width), ctypes.c_double(0))
        call("vips_linear1", y, ctypes.byref(channels[1]), ctypes.c_double(255 / height), ctypes.c_double(0))
        call("vips_linear1", x, ctypes.byref(channels[2]), ctypes.c_double(-255 / width), ctypes.c_double(255 - index))
        gradient = image()
        call("vips_bandjoin", (P * 3)(*channels), ctypes.byref(gradient), ctypes.c_int(3))
        total = binary("vips_add", binary("vips_add", binary("vips_add", gradient, noise(width, height, 12)), blobs(12, 30)), blobs(60, 40))
        photo = image()
        call("vips_cast", total, ctypes.byref(photo), ctypes.c_int(0))  # VIPS_FORMAT_UCHAR
        path = os.path.join(directory, f"IMG_{index + 1:04}.jpg")
        call("vips_image_write_to_file", photo, path.encode(), b"Q", ctypes.c_int(85))
        paths.append(path)
    return paths


class Browser:
    """Just enough of a browser: its cookies, its Origin, the page's CSRF token."""

    def __init__(self, port):
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.cookies = {}

    def request(self, method, path, body=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        for cookie in response.headers.get_all("Set-Cookie") or []:
            name, value = cookie.split(";", 1)[0].split("=", 1)
            self.cookies[name] = value
        connection.close()
        return response.status, response.headers, data

    def get(self, path):
        return self.request("GET", path)

    def hidden(self, path):
        """The page's CSRF token, and its once-only token where it has one."""
        _, _, body = self.get(path)
        return {name: re.search(rb'name="' + name.encode() + rb'" value="([^"]+)"', body).group(1).decode()
                for name in ("_csrf", "_once") if name.encode() in body}

    def post(self, path, fields, page, files=()):
        fields = dict(fields, **self.hidden(page))
        if files:
            boundary = uuid.uuid4().hex
            parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
                     for k, v in fields.items()]
            for name, path_ in files:
                with open(path_, "rb") as f:
                    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
                                 f'filename="{os.path.basename(path_)}"\r\nContent-Type: image/jpeg\r\n\r\n'.encode()
                                 + f.read() + b"\r\n")
            body = b"".join(parts) + f"--{boundary}--\r\n".encode()
            kind = f"multipart/form-data; boundary={boundary}"
        else:
            body = urllib.parse.urlencode(fields).encode()
            kind = "application/x-www-form-urlencoded"
        status, headers, _ = self.request("POST", path, body, {"Content-Type": kind, "Origin": self.base})
        return status, headers


def sign_up(port, username):
    browser = Browser(port)
    status, _ = browser.post("/signup", {"display_name": username.title(), "username": username,
                                         "password": "correct horse battery", "time_zone": "UTC"}, "/signup")
    assert status in (200, 303), f"sign-up failed: {status}"
    return browser


def start(kith, data, photo_mb=30):
    return start_kith(kith, data, "--root", ROOT, "--max-photo-mb", str(photo_mb))


def phone_bytes(browser, page, device_pixels=3, viewport=375):
    """What a phone fetches for `page` with every photo shown: the document,
    its stylesheets and scripts, and each photo's srcset pick."""
    _, _, html = browser.get(page)
    total = len(html)
    text = html.decode()
    for asset in re.findall(r'<(?:link rel="stylesheet"|script)[^>]*?(?:href|src)="([^"]+)"', text):
        total += len(browser.get(urllib.parse.urljoin(page, asset.replace("&amp;", "&")))[2])
    picks = []
    for srcset, sizes in re.findall(r'<source type="image/webp" srcset="([^"]+)" sizes="([^"]+)"', text):
        # "(max-width: 40rem) 42vw, 12rem": on a phone the first applies.
        vw = float(re.search(r"([\d.]+)vw", sizes).group(1))
        wanted = viewport * vw / 100 * device_pixels
        candidates = sorted((int(w), url) for url, w in re.findall(r"(\S+) (\d+)w", srcset))
        width, url = next(((w, u) for w, u in candidates if w >= wanted), candidates[-1])
        picks.append(width)
        total += len(browser.get(url.replace("&amp;", "&"))[2])
    return total, picks


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kith", default=os.path.join(ROOT, ".build/release/kith"))
    parser.add_argument("--photos", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        photos = sample_photos(scratch, args.photos)
        original_bytes = sum(os.path.getsize(p) for p in photos)
        data = os.path.join(scratch, "data")
        os.mkdir(data)
        proc, port = start(args.kith, data)
        try:
            host = sign_up(port, "hana_host")
            status, headers = host.post("/occasions", {"name": "Alex turns 30", "kind": "birthday", "celebrant_name": "Alex",
                                                       "date": "2030-12-12", "host_name": "Hana"}, "/occasions/new")
            assert status == 303, f"creating the occasion failed: {status}"
            occasion = int(re.search(r"/occasions/(\d+)", headers["Location"]).group(1))
            with sqlite3.connect(os.path.join(data, "kith.sqlite")) as db:
                code = db.execute("SELECT code FROM invite_codes WHERE kind = 'occasion' AND target_id = ?",
                                  (occasion,)).fetchone()[0]
            friend = sign_up(port, "friend_one")
            friend.post(f"/join/{code}", {}, f"/join/{code}")
            gift = f"/occasions/{occasion}/gift"
            before = cpu_seconds(proc.pid)
            began = time.perf_counter()
            status, _ = friend.post(gift + "/photos", {}, gift, files=[("photo", p) for p in photos])
            assert status == 303, f"upload failed: {status}"
            while friend.get(gift)[2].count(b"<picture>") < args.photos:
                time.sleep(0.2)
            cpu = cpu_seconds(proc.pid) - before
            wall = time.perf_counter() - began
            fetched, picks = phone_bytes(friend, gift)
            page = len(friend.get(gift)[2])
        finally:
            proc.terminate()
            proc.wait()
    per_photo = cpu / args.photos
    print_targets(f"Right-sized photos: a gift of {args.photos} photos of 12 MP "
                  f"({original_bytes / args.photos / 1e6:.1f} MB each)", [
        ("375 px phone fetches, gift page (after)", f"{fetched / 1e6:.2f} MB", "<= 1.5 MB", fetched <= 1_500_000),
        ("  the same page before variants", f"{(page + original_bytes) / 1e6:.1f} MB", "", None),
        ("  photo width each phone photo asks for", f"{sorted(set(picks))} px", "", None),
        ("server CPU per 12 MP photo, upload + variants", f"{per_photo:.2f} s", "", None),
        ("wall time per photo (machine load counts)", f"{wall / args.photos:.2f} s", "", None),
    ])


if __name__ == "__main__":
    main()
