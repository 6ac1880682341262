#!/usr/bin/env python3
"""Turns the vendored Natural Earth admin-1 polygons (longitude, latitude;
written by `make map-source`) into the plate game's North America map: the
50 states, DC, Canada's provinces and territories and Mexico's 32 federal
entities (from a second file, admin1-mx.json), each with its code,
name, a label point and an SVG path string, plus the viewBox, written as a
Swift source file in the templates module.

    python3 Scripts/namap.py [--input FILE] [--mexico FILE] [--output FILE]

The projection is an Albers equal-area conic for North America (standard
parallels 20N and 60N, centred on 96W, 40N), on a sphere: areas stay
comparable, which matters on a map you colour in. Alaska borders Yukon, so
it stays where it is; Hawaii is projected about its own meridian and moved
into an inset in the empty Pacific off California. Rings are simplified
(Douglas-Peucker) in the output plane and islands smaller than a tap are
dropped, keeping each region's largest piece. Standard library only; the
same input gives the same bytes. `make map` runs it with the defaults.
"""

import argparse
import json
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from usmap import area_and_centroid, generate, number, rounded_ring, swift_string

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_INPUT = os.path.join(HERE, "natural-earth", "admin1-us-ca.json")
# Mexico comes from a different package (see Scripts/naturalearth_mx.py), so
# it has a file of its own (`--mexico FILE`).
DEFAULT_MEXICO = os.path.join(HERE, "natural-earth", "admin1-mx.json")
DEFAULT_OUTPUT = os.path.join(os.path.dirname(HERE), "Templates", "Plates", "NorthAmericaMapData.swift")
LICENCE_FILE = os.path.join(HERE, "natural-earth", "LICENSE")

# The plane: map units per radian of the projection, so the whole is about
# 1000 units wide (the US map is 765: both are drawn to the width they get).
SCALE = 620.0
PARALLELS = (math.radians(20), math.radians(60))
ORIGIN = (math.radians(-96), math.radians(40))
# Hawaii: projected about its own meridian, then moved by this much.
HAWAII_ORIGIN = (math.radians(-157), math.radians(20))
HAWAII_OFFSET = (-300.0, 150.0)
# In output units: how far a simplified ring may stray, and the smallest
# island worth drawing (squared units).
TOLERANCE = 0.5
SMALLEST_ISLAND = 3.0

N = (math.sin(PARALLELS[0]) + math.sin(PARALLELS[1])) / 2
C = math.cos(PARALLELS[0]) ** 2 + 2 * N * math.sin(PARALLELS[0])


def albers(lon, lat, origin=ORIGIN):
    """Albers equal-area conic on the unit sphere; y grows southwards, as in SVG."""
    rho = math.sqrt(C - 2 * N * math.sin(lat)) / N
    rho0 = math.sqrt(C - 2 * N * math.sin(origin[1])) / N
    theta = N * (lon - origin[0])
    return SCALE * rho * math.sin(theta), -SCALE * (rho0 - rho * math.cos(theta))


def project(code, lon, lat):
    if code == "HI":
        x, y = albers(math.radians(lon), math.radians(lat), HAWAII_ORIGIN)
        return x + HAWAII_OFFSET[0], y + HAWAII_OFFSET[1]
    return albers(math.radians(lon), math.radians(lat))


def simplify(points, tolerance):
    """Douglas-Peucker on a closed ring, iteratively (rings have thousands of points)."""
    if len(points) < 4:
        return points
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        first, last = stack.pop()
        (x0, y0), (x1, y1) = points[first], points[last]
        dx, dy = x1 - x0, y1 - y0
        length = math.hypot(dx, dy)
        worst, index = -1.0, None
        for i in range(first + 1, last):
            px, py = points[i]
            if length == 0:
                distance = math.hypot(px - x0, py - y0)
            else:
                distance = abs(dy * px - dx * py + x1 * y0 - y1 * x0) / length
            if distance > worst:
                worst, index = distance, i
        if index is not None and worst > tolerance:
            keep[index] = True
            stack.append((first, index))
            stack.append((index, last))
    return [point for point, kept in zip(points, keep) if kept]


def code_of(feature):
    """US states keep their postal codes (stored spots use them); Canada's and
    Mexico's regions take ISO 3166-2 codes ("CA-ON", "MX-BCN"), so none can
    collide with a state."""
    iso = feature["iso"]
    if iso.startswith("US-"):
        return iso[3:]
    return iso


def build(source):
    regions = []
    min_x = min_y = float("inf")
    max_x = max_y = float("-inf")
    for feature in source["features"]:
        code = code_of(feature)
        rings = []
        for ring in feature["rings"]:
            projected = [project(code, lon, lat) for lon, lat in ring["points"]]
            area, centre = area_and_centroid(projected)
            rings.append((abs(area), centre, projected))
        if not rings:
            raise SystemExit("%s has no outline" % feature["iso"])
        largest = max(rings, key=lambda ring: ring[0])
        commands = []
        for area, _, projected in rings:
            if area < SMALLEST_ISLAND and area != largest[0]:
                continue
            rounded = rounded_ring(simplify(projected, TOLERANCE))
            if rounded is None:
                continue
            for x, y in projected:
                min_x, min_y = min(min_x, x), min(min_y, y)
                max_x, max_y = max(max_x, x), max(max_y, y)
            pairs = ["%s,%s" % point for point in rounded]
            commands.append("M" + pairs[0] + "L" + " ".join(pairs[1:]) + "Z")
        regions.append({
            "code": code,
            "name": feature["name"],
            "label": largest[1],
            "path": "".join(commands),
        })
    regions.sort(key=lambda region: region["name"])
    view_box = (
        int(min_x // 1) - 1,
        int(min_y // 1) - 1,
        int(-(-(max_x - min_x) // 1)) + 3,
        int(-(-(max_y - min_y) // 1)) + 3,
    )
    return regions, view_box


def render(regions, view_box, licence):
    lines = [
        "// Generated by `make map` (Scripts/namap.py) from Scripts/natural-earth/admin1-us-ca.json",
        "// and Scripts/natural-earth/admin1-mx.json.",
        "// Do not edit by hand: change the script and run `make map` again.",
        "//",
        "// Map data: Natural Earth admin-1 states and provinces (1:50m; Mexico 1:10m), public domain,",
        "// projected with an Albers equal-area conic for North America, Hawaii inset.",
        "//",
    ]
    lines += [("// " + line).rstrip() for line in licence.strip().splitlines()]
    lines += [
        "",
        "extension NorthAmericaMapData {",
        "    /// The plane every path is drawn in: `min-x min-y width height`.",
        "    public static let viewBox: USMapBox = USMapBox(minX: %d, minY: %d, width: %d, height: %d)" % view_box,
        "",
        "    /// The 50 states, DC, Canada's provinces and territories, and Mexico's states, by name.",
        "    public static let shapes: [USMapShape] = [",
    ]
    for region in regions:
        lx, ly = region["label"]
        lines.append(
            "        USMapShape(code: %s, fips: \"\", name: %s, labelX: %s, labelY: %s,"
            % (swift_string(region["code"]), swift_string(region["name"]), number(lx), number(ly))
        )
        lines.append("            path: %s)," % swift_string(region["path"]))
    lines += ["    ]", "}", ""]
    return "\n".join(lines)


def convert(source, licence, mexico):
    regions, view_box = build({"features": source["features"] + mexico["features"]})
    codes = {region["code"] for region in regions}
    if len(regions) != 96 or len(codes) != 96:
        raise SystemExit(
            "expected the 50 states, DC, Canada's 13 provinces and territories and Mexico's 32 states, found %d" % len(regions))
    return render(regions, view_box, licence), len(regions)


def main(argv):
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--mexico", default=DEFAULT_MEXICO)
    known, rest = parser.parse_known_args(argv)
    with open(known.mexico, encoding="utf-8") as handle:
        mexico = json.load(handle)
    generate(rest, __doc__.split("\n\n")[0], (DEFAULT_INPUT, DEFAULT_OUTPUT, LICENCE_FILE),
             lambda source, licence: convert(source, licence, mexico))


if __name__ == "__main__":
    main(sys.argv[1:])
