#!/usr/bin/env python3
"""Reads herd's JSON output (one document, or JSON Lines) on stdin and writes
it back with its provenance and wording left out, keys sorted: what a
refactoring must keep byte for byte (numbers, verdicts, names)."""
import json
import sys

DROP = {"provenance", "cite", "command", "build", "revision", "elapsed", "generated",
        "warnings", "warning", "reason", "note", "notes", "doc", "description", "check"}


def clean(x):
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items() if k not in DROP}
    if isinstance(x, list):
        return [clean(v) for v in x]
    return x


text = sys.stdin.read()
dec = json.JSONDecoder()
i = 0
while i < len(text):
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    try:
        v, i = dec.raw_decode(text, i)
    except ValueError:
        print(json.dumps({"non-json": text[i:].strip()}))
        break
    print(json.dumps(clean(v), sort_keys=True, indent=1))
