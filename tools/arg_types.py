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
