#!/usr/bin/env python3
"""Counts meson test results over one or more testlog.json files and prints
the line CI reads: "N passed, N failed, N skipped". --failed LABEL (any
number of times) adds a failed check that is not a meson test (e.g.
sanitizer reports found beside the tests). Exit 1 when any failed or no
test ran at all."""
import json
import sys

passed = failed = skipped = 0
args = sys.argv[1:]
paths = []
while args:
    a = args.pop(0)
    if a == "--failed":
        if not args:
            print("test_summary: --failed needs a label", file=sys.stderr)
            sys.exit(2)
        print(f"test_summary: failed: {args.pop(0)}", file=sys.stderr)
        failed += 1
    else:
        paths.append(a)
for path in paths:
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                result = json.loads(line).get("result", "")
                if result in ("OK", "EXPECTEDFAIL"):
                    passed += 1
                elif result == "SKIP":
                    skipped += 1
                else:
                    failed += 1
    except OSError as e:
        print(f"test_summary: cannot read {path}: {e.strerror}", file=sys.stderr)
        failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed == 0 else 0)
