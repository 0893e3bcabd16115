"""Writes ratios.json: pairs of texts and the ratio CPython's difflib
gives them, which ace-mcp's port is checked against. Run with python3
from this folder; the pairs come from a fixed seed."""
import json
import random
from difflib import SequenceMatcher

rng = random.Random(20261129)
words = ["use", "the", "cache", "retry", "before", "a", "call", "always",
         "check", "input", "é", "ünïcode", "API", "tokens", "limit", "x"]
pairs = []
for n in range(200):
    kind = n % 4
    if kind == 0:  # short texts over a small alphabet
        a = "".join(rng.choice("abcd ") for _ in range(rng.randint(0, 30)))
        b = "".join(rng.choice("abcd ") for _ in range(rng.randint(0, 30)))
    elif kind == 1:  # sentences, one edited
        a = " ".join(rng.choice(words) for _ in range(rng.randint(3, 25)))
        b = list(a.split())
        for _ in range(rng.randint(0, 4)):
            if b:
                b[rng.randrange(len(b))] = rng.choice(words)
        b = " ".join(b)
    else:  # long texts: CPython's popular-character heuristic applies
        a = " ".join(rng.choice(words) for _ in range(rng.randint(30, 90)))
        b = a[rng.randint(0, 20):] + " " + " ".join(rng.choice(words) for _ in range(rng.randint(0, 10)))
    a, b = a.lower(), b.lower()
    pairs.append({"a": a, "b": b, "ratio": SequenceMatcher(None, a, b).ratio(),
                  "percent": f"{SequenceMatcher(None, a, b).ratio():.0%}"})
with open("ratios.json", "w", encoding="utf-8") as f:
    json.dump(pairs, f, ensure_ascii=False, indent=0)
    f.write("\n")
