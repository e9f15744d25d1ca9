#!/usr/bin/env python3
"""Writes GlobeCore's bundled country set (Generated/BundledCountries.swift).

Shapes come from Natural Earth 1:110m Admin-0 countries (public domain), as extracted by
../shared/peers/extract_countries.py; codes, names, continents, capitals and capital positions
come from countries.tsv beside this script (authored for Clubhouse). Countries too small for
1:110m are drawn as a point at their capital (renderAs "point"). N. Cyprus and Somaliland, which
Natural Earth draws apart, join Cyprus and Somalia; French Guiana and Svalbard, which it draws as
parts of France and Norway, are their own ISO 3166-1 entries (a row names the polygons it takes).

The output is one compact GeoJSON FeatureCollection (one feature per line) in a Swift raw string
literal, so the plugin's shared library carries its data and needs no resource files.

It also writes Generated/ISO3166Names.swift: each ISO 3166-1 entry's alpha-2 and alpha-3 codes and
the ISO's own English names (short, official, common), from Debian's iso-codes package
(/usr/share/iso-codes/json/iso_3166-1.json), for lookups such as "DEU" or "Korea, Republic of".

Usage: python3 Plugins/Globe/Tools/generate_bundled_countries.py [NE_GEOJSON] [OUT_SWIFT] [ISO_JSON]
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
DEFAULT_NE = os.path.join(REPO, "..", "shared", "peers", "data", "naturalearth_lowres_countries.geojson")
DEFAULT_OUT = os.path.join(REPO, "Plugins", "Globe", "Sources", "GlobeCore", "Generated", "BundledCountries.swift")
DEFAULT_ISO = "/usr/share/iso-codes/json/iso_3166-1.json"


def read_table(path):
    rows = []
    header = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cells = line.split("\t")
            if header is None:
                header = cells
                continue
            if len(cells) != len(header):
                sys.exit(f"countries.tsv: row {cells[0]!r} has {len(cells)} cells, expected {len(header)}")
            rows.append(dict(zip(header, cells)))
    return rows


def polygons_of(geometry):
    if geometry["type"] == "Polygon":
        return [geometry["coordinates"]]
    if geometry["type"] == "MultiPolygon":
        return list(geometry["coordinates"])
    sys.exit(f"unexpected Natural Earth geometry {geometry['type']}")


def main():
    ne_path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_NE
    out_path = sys.argv[2] if len(sys.argv) > 2 else DEFAULT_OUT
    iso_path = sys.argv[3] if len(sys.argv) > 3 else DEFAULT_ISO
    with open(ne_path, encoding="utf-8") as f:
        ne = json.load(f)
    by_key = {}
    for feature in ne["features"]:
        props = feature["properties"]
        for key in (props.get("iso_a3"), "name:" + props["name"]):
            if key and key != "-99":
                if key in by_key:
                    sys.exit(f"Natural Earth key {key} is not unique")
                by_key[key] = feature
    used = set()
    lines = []
    codes = set()
    for row in read_table(os.path.join(HERE, "countries.tsv")):
        code = row["code"]
        if len(code) != 2 or not code.isupper() or code in codes:
            sys.exit(f"countries.tsv: bad or repeated code {code!r}")
        codes.add(code)
        props = {"name": row["name"], "continent": row["continent"]}
        if row["capital"]:
            props["capital"] = row["capital"]
            props["capitalLat"] = float(row["lat"])
            props["capitalLon"] = float(row["lon"])
        if row["aliases"]:
            props["aliases"] = row["aliases"].split("|")
        if row["capital_aliases"]:
            props["capitalAliases"] = row["capital_aliases"].split("|")
        if row["ne"] == "-":
            props["renderAs"] = "point"
            geometry = {"type": "Point", "coordinates": [float(row["lon"]), float(row["lat"])]}
        else:
            polygons = []
            for key in row["ne"].split("+"):
                key, _, part = key.partition("#")
                feature = by_key.get(key)
                if feature is None:
                    sys.exit(f"countries.tsv: {code} names Natural Earth feature {key!r}, which is not in {ne_path}")
                own = polygons_of(feature["geometry"])
                indices = [int(part)] if part else range(len(own))
                for k in indices:
                    if k >= len(own) or (id(feature), k) in used:
                        sys.exit(f"countries.tsv: {code} takes polygon {k} of {key}, which is missing or taken twice")
                    used.add((id(feature), k))
                    polygons.append(own[k])
            geometry = ({"type": "Polygon", "coordinates": polygons[0]} if len(polygons) == 1
                        else {"type": "MultiPolygon", "coordinates": polygons})
        feature = {"type": "Feature", "id": code, "properties": props, "geometry": geometry}
        lines.append(json.dumps(feature, ensure_ascii=False, separators=(",", ":")))
    unused = [f"{f['properties']['name']} polygon {k}" for f in ne["features"]
              for k in range(len(polygons_of(f["geometry"]))) if (id(f), k) not in used]
    if unused:
        sys.exit(f"Natural Earth features with no row in countries.tsv: {', '.join(unused)}")
    body = '{"type":"FeatureCollection","features":[\n' + ",\n".join(lines) + "\n]}"
    if '"""#' in body:
        sys.exit("data would end the Swift raw string early")
    swift = (
        "// Generated by Plugins/Globe/Tools/generate_bundled_countries.py from Natural Earth 1:110m\n"
        "// Admin-0 countries (public domain) and Plugins/Globe/Tools/countries.tsv. Do not edit.\n\n"
        "enum BundledCountries {\n"
        '    static let source = "Natural Earth 1:110m (public domain) with Clubhouse country table"\n'
        f"    static let featureCount = {len(lines)}\n\n"
        '    static let geojson = #"""\n' + body + '\n"""#\n'
        "}\n"
    )
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(swift)
    print(f"wrote {out_path}: {len(lines)} features, {len(swift.encode('utf-8'))} bytes")
    write_iso_names(iso_path, os.path.join(os.path.dirname(out_path), "ISO3166Names.swift"), codes)


def write_iso_names(iso_path, out_path, codes):
    with open(iso_path, encoding="utf-8") as f:
        entries = json.load(f)["3166-1"]
    missing = sorted({e["alpha_2"] for e in entries} - codes)
    if missing:
        sys.exit(f"countries.tsv has no row for ISO 3166-1 {', '.join(missing)}")
    rows = []
    for e in sorted(entries, key=lambda e: e["alpha_2"]):
        names = []
        for key in ("name", "official_name", "common_name"):
            if e.get(key) and e[key] not in names:
                names.append(e[key])
        if any("|" in n or '"' in n or "\\" in n for n in names):
            sys.exit(f"an ISO name of {e['alpha_2']} holds a character the table cannot carry")
        rows.append(f'        ("{e["alpha_2"]}", "{e["alpha_3"]}", "{"|".join(names)}"),')
    swift = (
        "// Generated by Plugins/Globe/Tools/generate_bundled_countries.py from Debian's iso-codes\n"
        "// (iso_3166-1.json): the ISO 3166-1 entries' codes and English names. Do not edit.\n\n"
        "enum ISO3166Names {\n"
        "    /// (alpha-2, alpha-3, names separated by \"|\": the short name, then the official and common names if any).\n"
        "    static let entries: [(alpha2: String, alpha3: String, names: String)] = [\n"
        + "\n".join(rows) + "\n    ]\n}\n"
    )
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(swift)
    print(f"wrote {out_path}: {len(rows)} entries")


if __name__ == "__main__":
    main()
