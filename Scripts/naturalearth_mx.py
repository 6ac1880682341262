#!/usr/bin/env python3
"""Writes Mexico's 32 federal entities (31 states and Mexico City) for the
plate game's North America map from Natural Earth's 1:10m admin-1 data, as
Debian's qgis-common ships it (world_map.gpkg, layer states_provinces), to
the same plain JSON that Scripts/naturalearth.R writes for the US and Canada:

    python3 Scripts/naturalearth_mx.py WORLD_MAP_GPKG OUTPUT

`make map-source` fetches the package and runs it. The 1:50m set Debian
packages for R stops at the Rio Grande; QGIS bundles the 1:10m set,
generalised, which covers every country. Standard library only (sqlite3
reads the GeoPackage; its geometries are WKB behind a small header).
Coordinates are longitude, latitude in degrees, rounded to 1e-4 (about
10 m), one ring per array, holes flagged.
"""

import json
import sqlite3
import struct
import sys

# Natural Earth keys Mexico's states by FIPS 10-4 (MX01..MX32); the game keys
# regions by ISO 3166-2, which is what plates and atlases use.
ISO_BY_FIPS = {
    "MX01": "AGU", "MX02": "BCN", "MX03": "BCS", "MX04": "CAM", "MX05": "CHP",
    "MX06": "CHH", "MX07": "COA", "MX08": "COL", "MX09": "CMX", "MX10": "DUR",
    "MX11": "GUA", "MX12": "GRO", "MX13": "HID", "MX14": "JAL", "MX15": "MEX",
    "MX16": "MIC", "MX17": "MOR", "MX18": "NAY", "MX19": "NLE", "MX20": "OAX",
    "MX21": "PUE", "MX22": "QUE", "MX23": "ROO", "MX24": "SLP", "MX25": "SIN",
    "MX26": "SON", "MX27": "TAB", "MX28": "TAM", "MX29": "TLA", "MX30": "VER",
    "MX31": "YUC", "MX32": "ZAC",
}
# The data predates 2016, when the Distrito Federal became Ciudad de México;
# "México" alone would read as the country, so the state takes its full name.
RENAMED = {"MX09": "Ciudad de México", "MX15": "Estado de México"}


def rings_of(blob):
    """The rings of a GeoPackage geometry (Polygon or MultiPolygon, 2D)."""
    if blob[:2] != b"GP":
        raise SystemExit("not a GeoPackage geometry")
    envelope = (blob[3] >> 1) & 0x07
    offset = 8 + {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}[envelope]
    rings = []

    def polygon(at):
        order = "<" if blob[at] == 1 else ">"
        kind, count = struct.unpack_from(order + "II", blob, at + 1)
        if kind % 1000 != 3:
            raise SystemExit("expected a polygon, found WKB type %d" % kind)
        at += 9
        for index in range(count):
            (points,) = struct.unpack_from(order + "I", blob, at)
            at += 4
            coords = struct.unpack_from(order + "%dd" % (2 * points), blob, at)
            at += 16 * points
            rings.append((index > 0, list(zip(coords[0::2], coords[1::2]))))
        return at

    order = "<" if blob[offset] == 1 else ">"
    (kind,) = struct.unpack_from(order + "I", blob, offset + 1)
    if kind % 1000 == 3:
        polygon(offset)
    elif kind % 1000 == 6:
        (count,) = struct.unpack_from(order + "I", blob, offset + 5)
        at = offset + 9
        for _ in range(count):
            at = polygon(at)
    else:
        raise SystemExit("unexpected WKB type %d" % kind)
    return rings


def number(value):
    text = "%.4f" % round(value, 4)
    text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def extract(gpkg):
    database = sqlite3.connect(gpkg)
    rows = database.execute(
        "SELECT fips, name, geom FROM states_provinces WHERE adm0_a3 = 'MEX' AND fips IS NOT NULL ORDER BY fips"
    ).fetchall()
    features = []
    for fips, name, blob in rows:
        if fips not in ISO_BY_FIPS:
            raise SystemExit("unknown Mexican state %s (%s)" % (fips, name))
        code = ISO_BY_FIPS[fips]
        rings = ['{"hole":%s,"points":[%s]}' % (
            "true" if hole else "false",
            ",".join("[%s,%s]" % (number(lon), number(lat)) for lon, lat in points))
            for hole, points in rings_of(blob)]
        features.append((code, '{"iso":%s,"postal":%s,"name":%s,"type":%s,"rings":[\n%s]}' % (
            json.dumps("MX-" + code), json.dumps(code), json.dumps(RENAMED.get(fips, name), ensure_ascii=False),
            json.dumps("Federal entity" if code == "CMX" else "State"), ",\n".join(rings))))
    if sorted(code for code, _ in features) != sorted(ISO_BY_FIPS.values()):
        raise SystemExit("expected Mexico's 32 federal entities, found %d" % len(features))
    features.sort()
    return "\n".join([
        '{"source":"Natural Earth 1:10m admin-1 states and provinces, generalised (world_map.gpkg, qgis-common), public domain",',
        '"features":[', ",\n".join(text for _, text in features) + "]}", ""])


def main(argv):
    if len(argv) != 2:
        raise SystemExit("usage: python3 Scripts/naturalearth_mx.py WORLD_MAP_GPKG OUTPUT")
    text = extract(argv[0])
    with open(argv[1], "w", encoding="utf-8") as out:
        out.write(text)
    print("wrote %s: %d regions" % (argv[1], text.count('"iso":')))


if __name__ == "__main__":
    main(sys.argv[1:])
