"""Read and summarise the %globaltimer phase stamps of a trace kernel (``codegen build --trace``).

Trace kernels (the sm_90a tile schedule, rs/ar) write 16 u64 slots per CTA into the last
``trace_layout.TRACE_ROWS`` rows of the workspace parity of their call (layout and the meaning of
each slot: :mod:`codegen.trace_layout`). They are built only into a cache root of their own;
point ``CODEGEN_CACHE_DIR`` (or ``GemmRsAr(cache_dir=...)``) at it, and the runtime loads them as
normal entries.

Which parity holds the last call's stamps: a call runs as epoch ``e = flags[FLAG_EPOCH] + 1``
and its last CTA stores ``flags[FLAG_EPOCH] = e`` before the kernel exits, so after the call's
stream is synchronised ``flags[FLAG_EPOCH]`` (:func:`last_epoch`) IS the last call's epoch and
its parity is ``e % 2``. (Any tile or swapab call of the same group advances the epoch; read it
right after the call you want.) Every CTA also records the epoch (slot ``epoch``) and a magic
word, so :func:`read_stamps` refuses stamps of another call or of a kernel without stamps.

Only needs numpy (and torch for :func:`read_stamps` / :func:`last_epoch`).
"""
from __future__ import annotations

import numpy as np

from codegen import contract, trace_layout
from codegen.trace_layout import SLOT


class TraceError(RuntimeError):
    """No usable stamps: not a trace kernel, another call's stamps, or M too large for them."""


def last_epoch(group, rank: int) -> int:
    """``flags[FLAG_EPOCH]`` of `rank`: the epoch of its last completed call (sync first)."""
    return int(group.flags(rank).local[contract.FLAG_EPOCH].item())


def stamp_rows(group, rank: int, epoch_parity: int):
    """The int64 view [max_ctas, SLOTS] (on the device) of `rank`'s stamp rows of a parity."""
    import torch

    ws = group.workspace(rank).local                     # [2, workspace_rows, N] bf16
    rp, n = ws.shape[1], ws.shape[2]
    rows = ws[epoch_parity, rp - trace_layout.TRACE_ROWS:rp]   # contiguous: TRACE_ROWS * N bf16
    flat = rows.reshape(-1).view(torch.int64)           # 4 bf16 per u64
    ctas = trace_layout.max_ctas(n)
    return flat[: ctas * trace_layout.SLOTS].reshape(ctas, trace_layout.SLOTS)


def read_stamps(group, rank: int, M: int, epoch_parity: int, *, epoch: int | None = None,
                cta_group: int = 1, pushed: bool = True) -> np.ndarray:
    """The stamps of `rank`'s last call with M rows: int64 array [ncta, SLOTS] (host copy).

    `epoch_parity`: ``epoch % 2`` of that call (:func:`last_epoch`); `epoch` (optional): the
    epoch every CTA must have recorded; `pushed`: the kernel pushes its partials into the
    owners' slots (codegen.contract.pushes_partials: the unicast trace kernels). The caller
    synchronises the call's stream first. Raises TraceError when the stamps cannot be there (M
    too large for the group's workspace: the kernel then writes none) or are not this call's
    (no magic word, another epoch).
    """
    if epoch_parity not in (0, 1):
        raise ValueError(f"epoch_parity = {epoch_parity!r} must be 0 or 1")
    wr = group.workspace_rows
    if not trace_layout.fits(M, cta_group, wr, group.N, 0, group.tp if pushed else 0):
        need = 2 * M + 4 * trace_layout.BM if pushed else M + 2 * trace_layout.BM
        raise TraceError(f"M = {M} (cta_group {cta_group}) leaves no free rows for stamps in a "
                         f"workspace of {wr} rows per parity: make the group with max_M >= {need}")
    table = stamp_rows(group, rank, epoch_parity).cpu().numpy()
    head = table[0]
    if int(head[SLOT["magic"]]) != trace_layout.MAGIC:
        raise TraceError(f"rank {rank}: no stamps in parity {epoch_parity} (not a trace kernel "
                         "(codegen build --trace), or the kernel found no room for them)")
    ncta = int(head[SLOT["ncta"]])
    if not 1 <= ncta <= len(table):
        raise TraceError(f"rank {rank}: CTA 0 recorded a grid of {ncta} CTAs")
    out = table[:ncta].copy()
    bad = np.flatnonzero(out[:, SLOT["magic"]] != trace_layout.MAGIC)
    if bad.size:
        raise TraceError(f"rank {rank}: CTAs {bad[:8].tolist()} wrote no stamps")
    want = int(head[SLOT["epoch"]]) if epoch is None else epoch
    if want % 2 != epoch_parity:
        raise TraceError(f"rank {rank}: epoch {want} is not of parity {epoch_parity}")
    other = np.flatnonzero(out[:, SLOT["epoch"]] != want)
    if other.size:
        raise TraceError(f"rank {rank}: CTAs {other[:8].tolist()} hold stamps of epoch "
                         f"{out[other[0], SLOT['epoch']]}, not {want}")
    return out


def _stats(values_ns: np.ndarray) -> dict:
    v = np.asarray(values_ns, dtype=np.float64) / 1000.0
    return {"median": float(np.median(v)), "max": float(v.max()), "min": float(v.min())}


def summarize(stamps: np.ndarray) -> dict:
    """Per-role times of one rank's call in us (pure; `stamps` as read_stamps returns).

    Per CTA (median / max / min over CTAs):
      gemm_us          gemm_end - gemm_start: the consumers' whole GEMM (tiles + epilogues)
      publish_wait_us  consumer wait for TMA store completion before releasing tile flags
      comm_tail_us     p2_end - gemm_end: how long the comm warps ran on after the CTA's GEMM
      p1_tail_us       p1_end - gemm_end: the same for the end of the reduction (phase 1)
      phase1_wait_us   comm wait for every rank's tile flags (phase 1)
      phase2_wait_us   comm wait for the AR flags before the copy-out (AR; RS 0)
      first_tile_us    gemm_start - entry (set-up, the e-2 epoch wait)
    Grid-wide (one number each, from the earliest entry):
      kernel_us        max end - min entry
      gemm_done_us     max gemm_end - min entry: when the last CTA's GEMM was done
      p1_done_us, comm_done_us, producer_done_us: the same for p1_end, p2_end, producer_end
      tail_us          max p2_end - max gemm_end: comm work after the whole GEMM was done
      p1_tail_global_us  max p1_end - max gemm_end
      entry_skew_us    max entry - min entry (CTAs starting late)
    Counts: tiles / units (sum, min, max over CTAs), ncta.
    """
    s = np.asarray(stamps, dtype=np.int64)
    if s.ndim != 2 or s.shape[1] != trace_layout.SLOTS or not len(s):
        raise ValueError(f"stamps must be [ncta >= 1, {trace_layout.SLOTS}], got {s.shape}")
    col = {name: s[:, i] for name, i in SLOT.items()}
    t0 = col["entry"].min()

    def since(name):
        return float((col[name].max() - t0) / 1000.0)

    def count(name):
        c = col[name]
        return {"sum": int(c.sum()), "min": int(c.min()), "max": int(c.max())}

    return {
        "ncta": int(len(s)),
        "kernel_us": float((col["end"].max() - t0) / 1000.0),
        "gemm_done_us": since("gemm_end"),
        "p1_done_us": since("p1_end"),
        "comm_done_us": since("p2_end"),
        "producer_done_us": since("producer_end"),
        "tail_us": float((col["p2_end"].max() - col["gemm_end"].max()) / 1000.0),
        "p1_tail_global_us": float((col["p1_end"].max() - col["gemm_end"].max()) / 1000.0),
        "entry_skew_us": float((col["entry"].max() - t0) / 1000.0),
        "gemm_us": _stats(col["gemm_end"] - col["gemm_start"]),
        "first_tile_us": _stats(col["gemm_start"] - col["entry"]),
        "publish_wait_us": _stats(col["publish_wait_ns"]),
        "comm_tail_us": _stats(col["p2_end"] - col["gemm_end"]),
        "p1_tail_us": _stats(col["p1_end"] - col["gemm_end"]),
        "phase1_wait_us": _stats(col["p1_wait_ns"]),
        "phase2_wait_us": _stats(col["p2_wait_ns"]),
        "tiles": count("tiles"),
        "units": count("units"),
    }
