#!/usr/bin/env python3
"""The peer a user would otherwise reach for: ruamel.yaml round-trip.

    python3 benches/ruamel_insert.py DIR [--limit-files K]

Loads every catalog file (*.s1.yaml, *.s1.partial.yaml) under DIR, sorted by relative path, with
ruamel.yaml round-trip (YAML(typ='rt'), preserve_quotes), inserts `effects: [read]` right after
`actionId` in every action that lacks `effects` (items of a top-level sequence or of a top-level
`actions:` sequence), dumps each document to a string (never to disk) and prints one JSON line:

    {"files": F, "actions": A, "inserted": I, "errors": E, "seconds": S, "actions_per_s": R}

`seconds` covers load + edit + dump (not the directory walk). Files ruamel cannot load are
counted in `errors` and skipped.
"""

import argparse
import io
import json
import os
import sys
import time

try:
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
except ImportError:  # pragma: no cover
    print("ruamel.yaml is not installed: pip install ruamel.yaml", file=sys.stderr)
    sys.exit(3)


def catalog_files(root):
    out = []
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith(".s1.yaml") or n.endswith(".s1.partial.yaml"):
                p = os.path.join(d, n)
                out.append((os.path.relpath(p, root).replace(os.sep, "/"), p))
    # Byte order of the relative path: the same order examples/bench.rs uses.
    out.sort(key=lambda t: t[0].encode("utf-8"))
    return [p for _, p in out]


def action_items(doc):
    if isinstance(doc, list):
        items = doc
    elif isinstance(doc, dict) and isinstance(doc.get("actions"), list):
        items = doc["actions"]
    else:
        return []
    return [i for i in items if isinstance(i, CommentedMap) and "actionId" in i]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--limit-files", type=int, default=None, help="only the first K files")
    a = ap.parse_args()

    files = catalog_files(a.dir)
    if a.limit_files is not None:
        files = files[: a.limit_files]

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.allow_duplicate_keys = True  # shape C main files repeat `$ref:`

    n_files = n_actions = inserted = errors = 0
    seconds = 0.0
    for path in files:
        with open(path, "rb") as f:
            raw = f.read()
        t = time.perf_counter()
        try:
            text = raw.decode("utf-8-sig")
            doc = yaml.load(text)
            for item in action_items(doc):
                n_actions += 1
                if "effects" in item:
                    continue
                flow = CommentedSeq(["read"])
                flow.fa.set_flow_style()
                pos = list(item.keys()).index("actionId") + 1
                item.insert(pos, "effects", flow)
                inserted += 1
            buf = io.StringIO()
            yaml.dump(doc, buf)
            _ = buf.getvalue()
        except Exception as e:  # noqa: BLE001 - report and go on, like the tool
            errors += 1
            print(f"{path}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
                  file=sys.stderr)
        seconds += time.perf_counter() - t
        n_files += 1

    print(json.dumps({
        "files": n_files,
        "actions": n_actions,
        "inserted": inserted,
        "errors": errors,
        "seconds": round(seconds, 3),
        "actions_per_s": round(n_actions / seconds, 1) if seconds > 0 else 0.0,
    }))


if __name__ == "__main__":
    main()
