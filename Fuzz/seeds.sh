#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets from the project's own inputs, outside git:
#   Fuzz/seeds.sh [OUT_DIR]            (default Fuzz/.build/corpus; one folder per target)
# Sources: the bundled plugins.json and the plugins.json schema, the protocol examples of the
# tennis domain page and its tests, small GeoJSON like the globe tests use, and hand-written edge
# cases. With SHARED_DATA=DIR (default ../shared/data beside the repo, when it exists) it also adds
# the shared JSON files under 64 KiB and a few features cut out of world.geojson: those stay in
# OUT_DIR and never enter the repository.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="${1:-$here/.build/corpus}"
shared="${SHARED_DATA:-$root/../shared/data}"

mkdir -p "$out"/{json,config,geojson,frame,ballmachine,canonical,rapsodo,stored-rows,http}
seed() {  # seed TARGET NAME < content
    cat > "$out/$1/seed-$2"
}

# --- JSON: the project's own documents and the edge cases of the strict parser -------------------
cp "$root/plugins.json" "$out/json/seed-plugins.json"
cp "$root/PluginSDK/plugins.schema.json" "$out/json/seed-schema.json"
printf '%s' '{"a":1,"b":[true,false,null],"c":{"d":"e"}}' | seed json object
printf '%s' '[0,-0,1.5,-2.25e10,1E+30,1e-7,123456789012345678901234567890]' | seed json numbers
printf '%s' '"esc \" \\ \/ \b \f \n \r \t \u0000 \u00e9 \ud83d\ude00 \u20ac"' | seed json escapes
printf '"raw \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"' | seed json utf8
printf '%s' ' [ [ [ { "k" : [ ] } ] ] ] ' | seed json nesting
printf '%s' '{"a":1,"a":2}' | seed json duplicate
printf '%s' '{"":"","~/":"/~"}' | seed json pointer-keys
printf '%s' '{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"ka":10,"kb":11,"kc":12,"kd":13,"ke":14,"kf":15,"kg":16,"kh":17}' | seed json wide-object
printf '%s' 'nul' | seed json truncated
printf '\xef\xbb\xbf{}' | seed json bom

# --- HTTP: a connection's bytes (the first byte picks the chunk size), pipelined and hostile requests ----
printf '\x03GET /courses/presidio/holes/1?at=1,2&tags=a&tags=b&on= HTTP/1.1\r\nHost: club\r\n\r\nGET /c/x HTTP/1.1\r\nHost: c\r\nConnection: close\r\n\r\n' | seed http pipelined
printf '\x07POST /courses/presidio HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 26\r\n\r\n{"n": 2.5, "doc": [1, {}]}' | seed http json-body
printf '\x01POST /courses/x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nhello' | seed http smuggle-cl-te
printf '\x02POST /courses/x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!' | seed http two-lengths
printf '\x04GET / HTTP/1.1\r\nHost: a\r\nX: y\r\n z\r\n\r\n' | seed http obs-fold
printf '\x05GET /courses/%%2e%%2e/holes/1 HTTP/1.1\nHost: a\n\n' | seed http bare-lf
printf '\x06GET /courses/%%22%%7D/holes/%%31 HTTP/1.0\r\nExpect: 100-continue\r\n\r\n' | seed http encoded
printf '\x00OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n' | seed http options

# --- plugins.json: the bundled file and variants that reach every branch of the reader -------------
cp "$root/plugins.json" "$out/config/seed-plugins.json"
printf '%s' '{"sites":{"default":{"plugins":{}}}}' | seed config minimal
cat <<'JSON' | seed config devices
{"version": 1, "default_site": "club", "plugin_dirs": ["plugins", "/opt/clubhouse"], "data_dir": "data",
 "sites": {"club": {"description": "d",
   "devices": {"m1": {"transport": "serial:/dev/ttyS0", "baud": 9600, "parity": "even", "data_bits": 7, "stop_bits": 2,
                      "trace": false, "connect_timeout_ms": 500},
               "m2": {"transport": "tcp:[::1]:9000"}, "m3": {"transport": "unix:/tmp/m.sock"},
               "m4": {"transport": "simulator:ballmachine", "options": {"checksum": "modbus", "reject_rate": 0.5}}},
   "plugins": {"a-1": {"path": "lib/liba.so", "version": "~1.2.3", "grants": ["storage", "device:m1", "invoke:*"],
                       "isolation": "process", "timeout_ms": 1000, "enabled": true, "config": {"x": [1, 2]}},
               "b": {"id": "org.example.b", "version": "1.2", "isolation": "in-process"},
               "c": {"id": "org.example.c", "version": ">1.0.0-beta.1 <=2.0.0, =1.5.0", "grants": ["invoke:a-1"]},
               "d": {"id": "org.example.d", "version": "^0.0.3"}, "e": {"id": "x", "version": "*"}}}}}
JSON
cat <<'JSON' | seed config errors
{"verison": 2, "default_site": "nowhere", "sites": {"s": {"plugns": {}, "devices": {"x": {"transport": "tcp:host"},
 "y": {"transport": "serial:/dev/ttyUSB0", "baud": 12345, "parity": "mark", "data_bits": 9}, "z": {}},
 "plugins": {"Bad": {}, "ok": {"id": 1, "version": "^x", "grants": ["device:nope", "root"], "isolation": "thread",
 "timeout_ms": 0, "config": []}}}}}
JSON

# --- GeoJSON: shapes like the globe tests use ---------------------------------------------------
cat <<'JSON' | seed geojson square-hole
{"type": "FeatureCollection", "features": [
 {"type": "Feature", "id": "AA", "properties": {"name": "Square", "continent": "Europe", "capital": "Ayy",
  "capital_lon": 1.5, "capital_lat": 1.5, "aliases": ["Sq"]},
  "geometry": {"type": "Polygon", "coordinates": [[[0,0],[4,0],[4,4],[0,4],[0,0]], [[1,1],[1,2],[2,2],[2,1],[1,1]]]}},
 {"type": "Feature", "id": "BB", "properties": {"name": "Dot", "continent": "Oceania"},
  "geometry": {"type": "Point", "coordinates": [10, -5]}}]}
JSON
cat <<'JSON' | seed geojson antimeridian
{"type": "Feature", "id": "FJ", "properties": {"name": "Across", "continent": "Oceania"},
 "geometry": {"type": "MultiPolygon", "coordinates": [[[[178,-16],[-179,-16],[-179,-18],[178,-18],[178,-16]]],
   [[[170,-10],[175,-10],[175,-12],[170,-10]]]]}}
JSON
cat <<'JSON' | seed geojson pole
{"type": "Polygon", "coordinates": [[[-180,-60],[-90,-65],[0,-70],[90,-65],[180,-60],[-180,-60]]]}
JSON
printf '%s' '{"type": "Point", "coordinates": [0.5, 51.5, 12]}' | seed geojson point
printf '%s' '{"type": "Feature", "id": 7, "properties": null, "geometry": null}' | seed geojson null-geometry

# --- protocol v0.3 frames: the domain page's examples, as hex text and as raw bytes --------------
k=0
for text in "5A A5 83 32 32 32 32 32 01 4F" "5aa5833232323232 01b6" "0x5A:0xA5:0x82:0x01:0xA3" "5A-A5-82-02-7F" \
            "5A A5 83 00 00 00 00 00 00 5A" "0x5AA58201A3" "5A A5 82 01 00"; do
    k=$((k + 1))
    printf '%s' "$text" | seed frame "hex-$k"
done
printf '\x5a\xa5\x83\x32\x32\x32\x32\x32\x01\x4f' | seed frame bytes-command-xor
printf '\x5a\xa5\x83\x32\x32\x32\x32\x32\x01\xb6' | seed frame bytes-command-modbus
printf '\x5a\xa5\x82\x01\xa3' | seed frame bytes-reply-modbus

# --- ball machine streams: byte 0 = checksum (bit 0) and reject rate, byte 1 = seed and chunk size
printf '\x00\x03\x5a\xa5\x83\x32\x32\x32\x32\x32\x01\x4f' | seed ballmachine xor-one
printf '\x01\x05\x5a\xa5\x83\x32\x32\x32\x32\x32\x01\xb6\x5a\xa5\x83\x32\x32\x32\x32\x32\x01\xb6' | seed ballmachine modbus-two
printf '\x40\x00\xff\x00\x5a\x5a\xa5\x83\x65\x00\x00\x00\x00\x01\x00\x5a\xa5\x82\x01\x00\x00\x00\x00\x00\x00' | seed ballmachine garbage

# --- canonical JSON: the JSON seeds plus what the two profiles write differently -------------------
cp "$out"/json/seed-* "$out/canonical/"
printf '%s' '[1.0,-0.0,0,-0,1e21,1e-7,5e-324,1.7976931348623157e308,123456789012345678901234567890,0.1,100,1E2]' | seed canonical numbers
printf '%s' '{"\u00e9":1,"\ud83d\ude00":2,"z":3,"a":{"c":[],"b":{}},"\u20ac":4,"":5}' | seed canonical utf16-order
printf '%s' '{"name":"7i","kpis":[{"metric":"ball_speed","min":100.5},{"metric":"spin_rate","max":7000}]}' | seed canonical template

# --- Rapsodo MLM2PRO exports: the layout RapsodoParser reads (title, header, shots, footers) -----
header='"Club Type","Club Brand","Club Model","Carry Distance","Total Distance","Ball Speed","Launch Angle","Launch Direction","Apex","Side Carry","Club Speed","Smash Factor","Descent Angle","Attack Angle","Club Path","Club Data Est Type","Spin Rate","Spin Axis"'
shot7='"7i",,,"142.2","151.2","102.0","26.7","-1.0","102.7","3.9","77.4","1.32","51.1","-0.0","-3.4",0,"5660","5.5"'
shotD='"Driver","Brand","Model","230.1","251.0","150.2","12.1","1.5","98.0","-7.2","103.0","1.46","35.0","2.0","1.0",1,"2500","-3.0"'
printf '%s\n\n%s\n%s\n%s\n' '"Rapsodo MLM2PRO: Range - 01/27/2026 4:30 PM",,,,,,,,,,,,,,,,,' "$header" "$shot7" "$shot7" | seed rapsodo title
printf '%s\n%s\n%s\n"Average",,,"142.2",,,,,,,,,,,,,,\n"Std. Dev.",,,"0.0",,,,,,,,,,,,,,\n\n%s\n%s\n' \
    "$header" "$shot7" "$shot7" "$header" "$shotD" | seed rapsodo blocks
printf '%s\r\n%s\r\n' "$header" '"PW",,,"110","115","80.5","30","0","70","1","70","1.15","50","-4","0",0,"8000","0"' | seed rapsodo crlf
printf '%s\n%s\n' '"Club Type","Ball Speed","Smash Factor","Spin Rate","Descent Angle"' '"9i","95.0","1.30","7000","49.0"' | seed rapsodo minimal-columns

# --- stored rows: a stream of stored values (see fuzz-stored-rows); ordinary ones, then extremes ------
printf '\x05\x01\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' | seed stored-rows small
head -c 512 /dev/zero | tr '\0' '\001' | seed stored-rows ones
printf '\x0b\x01\x02\x01\x05\x01\x06\x01\x07\x01\x02\x01\x04' | seed stored-rows extremes
printf '\x0b\x02\x00\x00\x00\x00\x00\x00\xf0\x7f\x02\x00\x00\x00\x00\x00\x00\xf8\x7f\x02\xff\xff\xff\xff\xff\xff\xef\x7f' | seed stored-rows bits

# --- shared data, when present (never copied into the repository) --------------------------------
if [ -d "$shared" ]; then
    while IFS= read -r -d '' f; do
        name="shared-$(echo "${f#"$shared"/}" | tr '/' '_')"
        cp "$f" "$out/json/$name"
    done < <(find "$shared" -name '*.json' -size -64k -print0)
    find "$shared" -name '*.json' -size -8k -exec cp {} "$out/canonical/" \;
    find "$shared" -name '*.csv' -size -64k -exec cp {} "$out/rapsodo/" \;
    if [ -f "$shared/globe/world.geojson" ] && command -v python3 >/dev/null; then
        python3 - "$shared/globe/world.geojson" "$out/geojson" <<'PY'
import json, sys
src, out = sys.argv[1], sys.argv[2]
features = json.load(open(src, encoding="utf-8"))["features"]
# The smallest few features (each alone as a FeatureCollection): real coordinates, short inputs.
features.sort(key=lambda f: len(json.dumps(f)))
for k, f in enumerate(features[:12]):
    with open(f"{out}/shared-world-{k}", "w", encoding="utf-8") as h:
        json.dump({"type": "FeatureCollection", "features": [f]}, h, ensure_ascii=False)
PY
    fi
fi
for t in json config geojson frame ballmachine canonical rapsodo stored-rows http; do
    echo "$t: $(ls "$out/$t" | wc -l) seeds in $out/$t"
done
