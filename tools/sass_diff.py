#!/usr/bin/env python3
"""Compare the SASS structure of the kernels in two cache roots (a script; CPU only, no GPU).

A template change can change how ptxas lays a kernel out without changing what it computes. In
2026-12-01's eighth session the k-tile count of the decode template was written (K + BK - 1) //
BK instead of K // BK; the value was right for every K, but the mode-none decode kernels lost
their uniform-register barrier waits and ran 0.5-1.2 us slower at decode sizes, which went
unnoticed for two sessions (BENCHMARKS.md, tenth session). Before timing a kernel change on the
GPU, build the kernels it replaces and look at what moved:

    python tools/ab_cubins.py HEAD --cache-dir generated/ab_old -- --tp 2 --arch sm_90a
    codegen build --tp 2 --arch sm_90a --cache-dir generated/ab_new
    python tools/sass_diff.py generated/ab_old generated/ab_new

For every variant in both roots (the newest entry of each name; stripped timing roots from
ab_cubins --cubins-only work too) it counts in the SASS (nvdisasm): instructions, mbarrier waits
(SYNCS.PHASECHK) and those addressing through uniform registers, branches, HGMMA and those that
wait for themselves (gsb0: serialized WGMMAs), TMA loads and stores, local-memory accesses
(spills), and takes the register count (codegen.resources). A kernel is listed when any count
but the instructions changed, or the instructions by more than --lines-tol; `--all` lists every
kernel. It reports and always exits 0 (bad arguments: 2): the GPU decides what a change costs.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codegen.binutils import disassemble  # noqa: E402
from codegen.resources import resources_from_cubin  # noqa: E402

#: (column, what it counts): the structural counts, in print order
COUNTS = (
    ("insts", "SASS instructions"),
    ("waits", "mbarrier waits (SYNCS.PHASECHK)"),
    ("waits_ur", "... addressing shared memory through uniform registers"),
    ("branches", "BRA"),
    ("hgmma", "HGMMA"),
    ("hgmma_gsb0", "HGMMA waiting for itself (gsb0)"),
    ("tma_ld", "UTMALDG"),
    ("tma_st", "UTMASTG"),
    ("local", "LDL / STL (spills)"),
    ("regs", "registers"),
)

_INST = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;")


def sass_stats(sass: str) -> dict[str, int]:
    """The structural counts (COUNTS but `regs`) of one kernel's SASS text (nvdisasm or
    cuobjdump -sass: lines like `/*07d0*/  @!P1 SYNCS.PHASECHK.TRANS64 P1, [R11+URZ+0x60], R9 ;`)."""
    insts = [m.group(1) for m in map(_INST.match, sass.splitlines()) if m]
    ops = [re.sub(r"^@!?U?P[T0-9]+\s+", "", i) for i in insts]   # drop the predicate guard
    waits = [i for i in ops if i.startswith("SYNCS.PHASECHK")]
    hgmma = [i for i in ops if i.startswith("HGMMA")]
    return {
        "insts": len(ops),
        "waits": len(waits),
        "waits_ur": sum("[UR" in w for w in waits),
        "branches": sum(i.startswith("BRA") for i in ops),
        "hgmma": len(hgmma),
        "hgmma_gsb0": sum("gsb0" in h for h in hgmma),
        "tma_ld": sum(i.startswith("UTMALDG") for i in ops),
        "tma_st": sum(i.startswith("UTMASTG") for i in ops),
        "local": sum(i.startswith(("LDL", "STL")) for i in ops),
    }


def newest_cubins(root: Path) -> dict[str, Path]:
    """variant name -> kernel.cubin of its newest entry (<root>/<arch>/<name>/<key>/)."""
    out: dict[str, Path] = {}
    for cubin in sorted(root.glob("*/*/*/kernel.cubin"), key=lambda p: p.stat().st_mtime):
        out[cubin.parent.parent.name] = cubin
    return out


def kernel_stats(cubin: Path) -> dict[str, int]:
    stats = sass_stats(disassemble(cubin))
    kernels = resources_from_cubin(cubin.read_bytes())["kernels"]
    stats["regs"] = max((k.get("registers", 0) for k in kernels.values()), default=0)
    return stats


def changed(a: dict[str, int], b: dict[str, int], lines_tol: float) -> bool:
    """Whether b differs from a: any count but the instructions, or those by more than
    lines_tol (a fraction of a's)."""
    if any(a[k] != b[k] for k, _ in COUNTS if k != "insts"):
        return True
    return abs(b["insts"] - a["insts"]) > lines_tol * max(a["insts"], 1)


def compare(old: dict[str, dict], new: dict[str, dict], lines_tol: float,
            every: bool = False) -> list[str]:
    """Table lines (markdown) of the kernels in both, listed as `changed` says (all: `every`)."""
    head = "| kernel | " + " | ".join(k for k, _ in COUNTS) + " |"
    rows = [head, "|---|" + "---|" * len(COUNTS)]
    for name in sorted(old.keys() & new.keys()):
        a, b = old[name], new[name]
        if every or changed(a, b, lines_tol):
            cells = [str(a[k]) if a[k] == b[k] else f"{a[k]} -> {b[k]}" for k, _ in COUNTS]
            rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", type=Path, help="cache root of the kernels before (e.g. generated/ab_old)")
    ap.add_argument("new", type=Path, help="cache root of the kernels after")
    ap.add_argument("--lines-tol", type=float, default=0.02,
                    help="instruction-count change (fraction) listed on its own (default 0.02)")
    ap.add_argument("--all", action="store_true", help="list every kernel in both roots")
    args = ap.parse_args(argv)
    roots = {}
    for side in ("old", "new"):
        root = getattr(args, side)
        roots[side] = newest_cubins(root)
        if not roots[side]:
            ap.error(f"{side} root {root} holds no kernel.cubin (<root>/<arch>/<variant>/<key>/); "
                     f"build it with codegen build --cache-dir {root} or tools/ab_cubins.py")
    both = sorted(roots["old"].keys() & roots["new"].keys())
    stats = {side: {n: kernel_stats(roots[side][n]) for n in both} for side in roots}
    lines = compare(stats["old"], stats["new"], args.lines_tol, args.all)
    print("\n".join(lines))
    only = {side: sorted(roots[side].keys() - set(both)) for side in roots}
    print(f"\n{len(both)} kernels in both roots, {len(lines) - 2} listed; only in old: "
          f"{len(only['old'])}, only in new: {len(only['new'])}")
    for key, what in COUNTS:
        print(f"  {key}: {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
