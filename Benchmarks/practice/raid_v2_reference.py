#!/usr/bin/env python3
"""raid-v2 written the Python way, to check the Swift profile against canonicaljson's rules.

raid-v2 is canonicaljson (stdlib json, compact separators, ensure_ascii=False, floats by repr,
integers exact) except for key order: raid-v2 sorts keys by UTF-16 code units (RFC 8785 3.2.3),
canonicaljson by code point. This script applies canonicaljson's number and string rules with
UTF-16 key order and prints one sha256 per JSON line, so every line where the Swift raid-v2 hash
differs from the canonicaljson peer can be shown to differ only in key order.

Usage: python raid_v2_reference.py FILE.jsonl > hashes.txt
"""
import hashlib
import json
import sys


def utf16_order(value):
    if isinstance(value, dict):
        return {k: utf16_order(value[k]) for k in sorted(value, key=lambda k: k.encode("utf-16-be"))}
    if isinstance(value, list):
        return [utf16_order(v) for v in value]
    return value


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    out = sys.stdout
    for line in text.split("\n"):  # LF only: U+2028 may sit raw inside a string
        if not line.strip():
            continue
        canonical = json.dumps(utf16_order(json.loads(line)), ensure_ascii=False, separators=(",", ":"),
                               allow_nan=False).encode("utf-8")
        out.write(hashlib.sha256(canonical).hexdigest() + "\n")


if __name__ == "__main__":
    main()
