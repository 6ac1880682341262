#!/usr/bin/env python3
"""Turns the us-atlas TopoJSON (already projected with Albers USA, Alaska and
Hawaii as insets in the lower left) into the plate game's map: per state its
postal code, FIPS code, name, a label point and an SVG path string, plus the
viewBox, written as a Swift source file in the templates module.

    python3 Scripts/usmap.py [--input FILE] [--output FILE]

`make map` runs it with the defaults: the vendored copy of the atlas in
Scripts/us-atlas/ and Templates/Plates/USMapData.swift. The output depends
only on the input, so running it again gives identical bytes. Standard
library only. The app never sees TopoJSON: it draws these strings.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_INPUT = os.path.join(HERE, "us-atlas", "states-albers-10m.json")
DEFAULT_OUTPUT = os.path.join(os.path.dirname(HERE), "Templates", "Plates", "USMapData.swift")
LICENCE_FILE = os.path.join(HERE, "us-atlas", "LICENSE")

# FIPS state codes to USPS postal codes: the atlas carries FIPS ids and names only.
POSTAL = {
    "01": "AL", "02": "AK", "04": "AZ", "05": "AR", "06": "CA", "08": "CO", "09": "CT", "10": "DE",
    "11": "DC", "12": "FL", "13": "GA", "15": "HI", "16": "ID", "17": "IL", "18": "IN", "19": "IA",
    "20": "KS", "21": "KY", "22": "LA", "23": "ME", "24": "MD", "25": "MA", "26": "MI", "27": "MN",
    "28": "MS", "29": "MO", "30": "MT", "31": "NE", "32": "NV", "33": "NH", "34": "NJ", "35": "NM",
    "36": "NY", "37": "NC", "38": "ND", "39": "OH", "40": "OK", "41": "OR", "42": "PA", "44": "RI",
    "45": "SC", "46": "SD", "47": "TN", "48": "TX", "49": "UT", "50": "VT", "51": "VA", "53": "WA",
    "54": "WV", "55": "WI", "56": "WY",
}


def decode_arcs(topology):
    """Quantized, delta-encoded arcs to absolute plane coordinates."""
    transform = topology.get("transform")
    arcs = []
    for arc in topology["arcs"]:
        x = y = 0
        points = []
        for position in arc:
            if transform:
                x += position[0]
                y += position[1]
                sx, sy = transform["scale"]
                tx, ty = transform["translate"]
                points.append((x * sx + tx, y * sy + ty))
            else:
                points.append((position[0], position[1]))
        arcs.append(points)
    return arcs


def stitch(ring, arcs):
    """One ring from its arc indices: a negative index (~i) is arc i
    reversed; each arc after the first starts where the last one ended, so
    its first point is dropped."""
    points = []
    for index in ring:
        arc = arcs[~index][::-1] if index < 0 else arcs[index]
        points.extend(arc if not points else arc[1:])
    return points


def number(value):
    """One decimal place (a tenth of a pixel on a 975-pixel map), without a
    trailing .0 and never as -0."""
    text = "%.1f" % value
    if text.endswith(".0"):
        text = text[:-2]
    return "0" if text in ("-0", "-0.0") else text


def rounded_ring(points):
    """The ring in output precision, repeated points removed, or None when
    rounding leaves too little of it to enclose anything."""
    out = []
    for x, y in points:
        point = (number(x), number(y))
        if not out or out[-1] != point:
            out.append(point)
    if len(out) > 1 and out[0] == out[-1]:
        out.pop()
    return out if len(out) >= 3 else None


def area_and_centroid(points):
    """Signed area and area centroid of a closed ring (shoelace formula)."""
    area = cx = cy = 0.0
    for i in range(len(points)):
        x0, y0 = points[i]
        x1, y1 = points[(i + 1) % len(points)]
        cross = x0 * y1 - x1 * y0
        area += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
    area /= 2.0
    if area == 0:
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        return 0.0, (sum(xs) / len(xs), sum(ys) / len(ys))
    return area, (cx / (6.0 * area), cy / (6.0 * area))


def polygons_of(geometry):
    if geometry["type"] == "Polygon":
        return [geometry["arcs"]]
    if geometry["type"] == "MultiPolygon":
        return geometry["arcs"]
    raise SystemExit("unexpected geometry type %s" % geometry["type"])


def build(topology):
    arcs = decode_arcs(topology)
    states = []
    min_x = min_y = float("inf")
    max_x = max_y = float("-inf")
    for geometry in topology["objects"]["states"]["geometries"]:
        fips = geometry["id"]
        if fips not in POSTAL:
            raise SystemExit("no postal code for FIPS %s" % fips)
        commands = []
        largest = (0.0, None)
        for polygon in polygons_of(geometry):
            for ring_number, ring in enumerate(polygon):
                points = stitch(ring, arcs)
                rounded = rounded_ring(points)
                if rounded is None:
                    continue
                for x, y in points:
                    min_x, min_y = min(min_x, x), min(min_y, y)
                    max_x, max_y = max(max_x, x), max(max_y, y)
                pairs = ["%s,%s" % point for point in rounded]
                commands.append("M" + pairs[0] + "L" + " ".join(pairs[1:]) + "Z")
                if ring_number == 0:
                    area, centre = area_and_centroid(points)
                    if abs(area) > largest[0]:
                        largest = (abs(area), centre)
        states.append({
            "code": POSTAL[fips],
            "fips": fips,
            "name": geometry["properties"]["name"],
            "label": largest[1],
            "path": "".join(commands),
        })
    states.sort(key=lambda state: state["name"])
    # The viewBox: every point, with a pixel of margin, on whole pixels.
    view_box = (
        int(min_x // 1) - 1,
        int(min_y // 1) - 1,
        int(-(-(max_x - min_x) // 1)) + 3,
        int(-(-(max_y - min_y) // 1)) + 3,
    )
    check_bbox(topology, (min_x, min_y, max_x, max_y))
    return states, view_box


def check_bbox(topology, extent):
    """Says so (on stderr, not in the output) when the file's declared bbox
    disagrees with the decoded points. The transform is what TopoJSON
    defines coordinates by; the viewBox comes from the points either way."""
    declared = topology.get("bbox")
    if not declared:
        return
    width = extent[2] - extent[0]
    declared_width = declared[2] - declared[0]
    if width > 0 and abs(declared_width / width - 1) > 0.01:
        sys.stderr.write(
            "note: the atlas declares bbox %s, but its transform decodes to %s (x%.3f); "
            "the viewBox follows the decoded points\n"
            % (["%.1f" % v for v in declared], ["%.1f" % v for v in extent], declared_width / width)
        )


def swift_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(states, view_box, licence):
    lines = [
        "// Generated by `make map` (Scripts/usmap.py) from Scripts/us-atlas/states-albers-10m.json.",
        "// Do not edit by hand: change the script and run `make map` again.",
        "//",
        "// Map data: us-atlas v3, from the US Census Bureau's cartographic boundary",
        "// files (public domain), projected with the Albers USA composite projection.",
        "// The us-atlas licence:",
        "//",
    ]
    lines += [("// " + line).rstrip() for line in licence.strip().splitlines()]
    lines += [
        "",
        "extension USMapData {",
        "    /// The plane every path is drawn in: `min-x min-y width height`.",
        "    public static let viewBox: USMapBox = USMapBox(minX: %d, minY: %d, width: %d, height: %d)" % view_box,
        "",
        "    /// The 50 states and DC, by name.",
        "    public static let shapes: [USMapShape] = [",
    ]
    for state in states:
        lx, ly = state["label"]
        lines.append(
            "        USMapShape(code: %s, fips: %s, name: %s, labelX: %s, labelY: %s,"
            % (swift_string(state["code"]), swift_string(state["fips"]), swift_string(state["name"]), number(lx), number(ly))
        )
        lines.append("            path: %s)," % swift_string(state["path"]))
    lines += ["    ]", "}", ""]
    return "\n".join(lines)


def generate(argv, description, defaults, convert):
    """The command line both map scripts share: read the input JSON and the
    licence, `convert(data, licence)` to (Swift text, shape count), and only
    then write the output, so a refused input leaves nothing behind."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--input", default=defaults[0])
    parser.add_argument("--output", default=defaults[1])
    parser.add_argument("--licence", default=defaults[2])
    arguments = parser.parse_args(argv)
    with open(arguments.input, encoding="utf-8") as handle:
        data = json.load(handle)
    with open(arguments.licence, encoding="utf-8") as handle:
        licence = handle.read()
    text, count = convert(data, licence)
    with open(arguments.output, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
    print("wrote %s: %d shapes, %d bytes" % (arguments.output, count, len(text.encode("utf-8"))))


def convert(topology, licence):
    states, view_box = build(topology)
    if len(states) != 51:
        raise SystemExit("expected 50 states and DC, found %d" % len(states))
    return render(states, view_box, licence), len(states)


def main(argv):
    generate(argv, __doc__.split("\n\n")[0], (DEFAULT_INPUT, DEFAULT_OUTPUT, LICENCE_FILE), convert)


if __name__ == "__main__":
    main(sys.argv[1:])
