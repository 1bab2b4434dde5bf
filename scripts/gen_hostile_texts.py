#!/usr/bin/env python3
"""Writes the texts of the hostile benchmark bodies that take a search
(bindings/python/bench/hostile.py reads them; the other shapes it makes
itself). Needs numpy; the outputs are committed, so only a change of the
hashes they aim at needs a new run.

    python scripts/gen_hostile_texts.py

* ``benches/data/hostile/colliding_keys.txt``: 2,000 keys of 16 lowercase
  letters that share their slot of the Python reader's plain keys' table
  (``KeysByText``: the top 11 bits of the FxHash step over the key's two
  words). A hash map there compared each with every one before it.
* ``benches/data/hostile/colliding_decimals.txt``: 1,000 decimal texts
  ``0.dddddddddddddd`` that share hashbrown's bucket (the low 13 bits) and tag
  (the top 7) under that unkeyed hash as ``str``'s ``Hash`` feeds it (the
  bytes, then ``0xff``): what the shared ``Decimal`` table used until it took
  a seeded hash.
"""
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "benches" / "data" / "hostile"
K = np.uint64(0x517CC1B727220A95)


def add(h, w):
    with np.errstate(over="ignore"):
        return (((h << np.uint64(5)) | (h >> np.uint64(59))) ^ w) * K


def two_words(b):
    return b[:, :8].copy().view("<u8").ravel(), b[:, 8:16].copy().view("<u8").ravel()


def search(n, make, hit, seed):
    rng = np.random.default_rng(seed)
    found = {}
    while len(found) < n:
        b = make(rng)
        for row in b[hit(b)]:
            found[row.tobytes().decode()] = None
    return sorted(found)[:n]


def letters(rng):
    return rng.integers(ord("a"), ord("z") + 1, size=(1 << 22, 16), dtype=np.uint8)


def keys_in_one_slot(b):
    w1, w2 = two_words(b)
    h = add(add(np.zeros_like(w1), w1), w2)
    return (h >> np.uint64(53)) == np.uint64(1234)


def decimals(rng):
    digits = rng.integers(ord("0"), ord("9") + 1, size=(1 << 22, 14), dtype=np.uint8)
    head = np.tile(np.frombuffer(b"0.", np.uint8), (len(digits), 1))
    return np.concatenate([head, digits], axis=1)


def decimals_in_one_bucket(b):
    w1, w2 = two_words(b)
    h = add(add(add(np.zeros_like(w1), w1), w2), np.uint64(0xFF))
    # A bucket ordinary decimals' texts reach (their low bits take few values).
    return ((h & np.uint64(8191)) == np.uint64(6045)) & ((h >> np.uint64(57)) == np.uint64(77))


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "colliding_keys.txt").write_text("\n".join(search(2000, letters, keys_in_one_slot, 1)) + "\n")
    (OUT / "colliding_decimals.txt").write_text("\n".join(search(1000, decimals, decimals_in_one_bucket, 2)) + "\n")


if __name__ == "__main__":
    main()
