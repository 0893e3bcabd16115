"""ace_tools.read of a generated playbook in each format, against json.loads
of its canonical JSON, in the same process (issue 33's target: at most 2x).

Usage: python bench_read.py DIR   (DIR/gen.FORMAT from `cargo xtask gen`)
Prints one line per format: the medians of five runs and their ratio.
"""

import json
import pathlib
import statistics
import sys
import time

import ace_tools


def median(f, runs=5):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    d = pathlib.Path(sys.argv[1])
    print(f"{'format':14} {'entries':>8} {'read':>8} {'json.loads':>10} {'ratio':>6}")
    for fmt in ace_tools.FORMATS:
        path = d / f"gen.{fmt}"
        if path.is_dir():
            path = path / "AGENTS.md"
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        canonical = json.dumps(ace_tools.read(text, format=fmt))
        entries = len(json.loads(canonical)["playbook"]["entries"])
        ours = median(lambda: ace_tools.read(text, format=fmt))
        base = median(lambda: json.loads(canonical))
        print(f"{fmt:14} {entries:>8} {ours:>7.3f}s {base:>9.3f}s {ours / base:>5.2f}x")


if __name__ == "__main__":
    main()
