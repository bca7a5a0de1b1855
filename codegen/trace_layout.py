"""Where a trace kernel (``codegen build --trace``) leaves its ``%globaltimer`` stamps: pure stdlib.

Imported by the trace kernels (the sm_90a tile schedule, modes rs/ar, rendered with ``trace``)
and by :mod:`codegen.runtime.trace`, so the layout has one source. Normal kernels never import
this module, so it is not part of their cache keys.

The stamps go to the END of the current parity's workspace: rows ``[ws_rows - TRACE_ROWS,
ws_rows)`` of parity ``epoch % 2`` of the rank's own workspace ``[2, ws_rows, N]`` bf16
(``ws_rows = codegen.contract.workspace_rows``). A pulled partial tile of a call with M rows
covers rows ``[0, ceil(M / (BM * cta_group)) * BM * cta_group)`` of that parity and peers read
only rows below M; a pushed one writes each owner slot's rows below ``ceil(M / tp) + BM``. The
stamp rows are free when :func:`fits` holds; otherwise the kernel writes no stamps at all. CTA ``cta`` owns SLOTS u64
words (CTA_BYTES bytes) at byte :func:`cta_offset`; each slot is written by exactly one thread
with a plain ``st.global.u64``.
"""
from __future__ import annotations

TRACE_ROWS = 8           # workspace rows at the end of a parity that hold the stamps
SLOTS = 16               # u64 words per CTA
SLOT_BYTES = 8
CTA_BYTES = SLOTS * SLOT_BYTES
MAGIC = 0x7472616365     # "trace": slot MAGIC_SLOT of every CTA that wrote its stamps

#: slot -> (name, who writes it, what). Times are %globaltimer ns; *_ns sums are durations.
SLOT_DOC = {
    0: ("entry", "thread 0", "kernel entry"),
    1: ("gemm_start", "consumer thread 0", "before the first tile's mainloop (after the e-2 epoch wait)"),
    2: ("gemm_end", "consumer thread 0", "after the last tile's epilogue TMA stores were issued"),
    3: ("publish_wait_ns", "consumer thread 0 (store warp)",
        "sum of the waits for TMA store completion before each tile flag's release"),
    4: ("tiles", "consumer thread 0", "GEMM tiles this CTA computed"),
    5: ("p1_start", "comm thread 0", "comm phase 1 (reduction) start"),
    6: ("p1_end", "comm thread 0", "comm phase 1 end (its own last stores issued)"),
    7: ("p1_wait_ns", "comm thread 0",
        "sum over units of the wait for every rank's tile flag (incl. the comm barrier)"),
    8: ("p2_end", "comm thread 0", "end of the comm warps' work (AR: copy-out; RS: zero padding)"),
    9: ("p2_wait_ns", "comm thread 0", "AR: sum of the waits for the owners' AR flags; RS: 0"),
    10: ("units", "comm thread 0", "phase-1 units (tile x own row chunk) this CTA reduced"),
    11: ("producer_end", "thread 0 (TMA warp)", "after the last TMA load was issued"),
    12: ("end", "thread 0", "every role of the CTA done (before the epoch close)"),
    13: ("epoch", "thread 0", "the call's epoch"),
    14: ("ncta", "thread 0", "grid size (CTAs)"),
    15: ("magic", "thread 0", f"{MAGIC:#x}: this CTA wrote its stamps"),
}
SLOT = {name: i for i, (name, _, _) in SLOT_DOC.items()}
MAGIC_SLOT = SLOT["magic"]
BM = 128  # = codegen.contract.BM (not imported: the trace kernels' keys stay off contract edits)


def gemm_rows(M, cta_group):
    """Workspace rows per parity the GEMM's partial tiles of an M-row call cover."""
    step = BM * cta_group
    return (M + step - 1) // step * step


def fits(M, cta_group, ws_rows, N, cta, push_tp=0):
    """Whether CTA ``cta``'s stamps are free to write (plain integer arithmetic: the kernel
    calls it with DSL integers, the runtime with Python ints). ``ws_rows``: the workspace's
    rows per parity (codegen.contract.workspace_rows).

    Pulled partials: the call's tiles cover rows below gemm_rows. ``push_tp`` > 0: the kernel
    pushes its partials into push_tp owners' slots (codegen.contract pushes_partials): the
    stamp rows are then the last data rows of the last slot (each slot is ws_rows / push_tp
    rows, a guard of BM first), and a source writes a slot's rows below ceil(M / push_tp) + BM
    only."""
    ok = (cta + 1) * CTA_BYTES <= TRACE_ROWS * N * 2
    if push_tp:
        return ok & ((M + push_tp - 1) // push_tp + BM + TRACE_ROWS <= ws_rows // push_tp - BM)
    return ok & (gemm_rows(M, cta_group) <= ws_rows - BM)


def region_offset(parity, ws_rows, N):
    """Byte offset of the stamp rows of parity ``parity`` in a rank's workspace."""
    return (parity * ws_rows + ws_rows - TRACE_ROWS) * N * 2


def max_ctas(N) -> int:
    """CTAs whose stamps fit in the TRACE_ROWS rows of width N."""
    return TRACE_ROWS * N * 2 // CTA_BYTES
