"""Argument types the tools share (imported by tools/*.py and tools/probes/*.py; never run)."""
from __future__ import annotations

import argparse


def ints(text: str) -> list[int]:
    """A comma-separated list of integers, e.g. "16,64,128" (empty items are skipped)."""
    try:
        return [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, e.g. 16,64,128; got {text!r}") from None


def shapes(text: str) -> list[tuple[int, int]]:
    """A comma-separated list of N:K pairs, e.g. "7168:2304,5120:2560"."""
    out = []
    for item in (i for i in text.split(",") if i.strip()):
        n, sep, k = item.partition(":")
        if not sep or not n.strip().isdigit() or not k.strip().isdigit():
            raise argparse.ArgumentTypeError(f"shape '{item}' is not N:K (e.g. 4096:2048)")
        out.append((int(n), int(k)))
    return out


def points(text: str) -> dict[tuple[int, int], list[int]]:
    """A comma-separated list of N:K:M triples, e.g. "4096:2048:64,4096:2048:160", as {(N, K):
    [M, ...]} in the order given."""
    out: dict[tuple[int, int], list[int]] = {}
    for item in (i for i in text.split(",") if i.strip()):
        parts = item.split(":")
        if len(parts) != 3 or not all(p.strip().isdigit() for p in parts):
            raise argparse.ArgumentTypeError(f"point '{item}' is not N:K:M (e.g. 4096:2048:64)")
        n, k, m = (int(p) for p in parts)
        out.setdefault((n, k), []).append(m)
    return out
