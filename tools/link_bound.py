"""The physical bound of a fused GEMM + RS / AR row, and the NVLink peer-bandwidth probe that
feeds it (imported by tools/bench_multi_gpu.py and tools/bench_report.py; never run).

Per row (mode, M, N, tp), from numbers measured in the same run:
  link_bytes  what each GPU must send over NVLink in one call (:func:`link_bytes`)
  link_us     T_link = link_bytes / the measured peer bandwidth (link_gbps, GB/s = 1e9 B/s)
  phys_us     T_phys = max(T_gemm, T_link): the GEMM (gemm_us, torch.mm alone) and the
              exchange at best overlap completely, so neither can be beaten
  phys_eff    eff = T_phys / fused (1.0 = the fused kernel at the bound; tuned_phys_eff for
              the fastest swept candidate)
and, with ours_gemm_us (OUR GEMM alone: GemmRsAr mode 'none' with the fused row's schedule,
BN, CTA group and SM budget, every rank at once, slowest rank), where the fused time goes
(:func:`time_breakdown`):
  gemm_eff    T_gemm / ours_gemm: torch.mm (cuBLAS) against our GEMM (< 1: ours is slower)
  exposed_us  fused - max(ours_gemm, T_link): the time the exchange adds beyond the slower of
              our own GEMM and the link (< 0: the fused kernel is faster than that bound)
  overlap     1 - exposed / min(ours_gemm, T_link), clipped to [0, 1]: 1 = the shorter of the
              two is hidden entirely under the longer, 0 = no better than back to back

The probe (:class:`PeerCopy`) copies a large buffer from the peer rank's torch symmetric-memory
buffer into a local tensor, every rank at once (as in the real exchange: every link direction
busy). Rank r reads rank (r + 1) % tp; at TP2 that is the other GPU. Two copies are timed:
  sm      an elementwise kernel (dst = peer | 0 on int32 words, 16-byte accesses): SM-driven
          loads over NVLink, like the fused kernel's exchange
  memcpy  dst.copy_(peer): torch turns a contiguous same-dtype copy into cudaMemcpyAsync, which
          the driver may serve with a copy engine rather than the SMs (a cross-check)
It never creates a multicast object: a plain symmetric allocation and rendezvous, under the
switches that tools/bench_multi_gpu.py keeps set (TORCH_SYMM_MEM_DISABLE_MULTICAST=1, ...).
"""
from __future__ import annotations

import math

ELEM_BYTES = 2  # bf16 partials and results
COPIES = ("sm", "memcpy")


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def link_bytes(mode: str, M: int, N: int, tp: int, elem_bytes: int = ELEM_BYTES) -> int:
    """Bytes each GPU must send over NVLink for one call of M x N output rows at `tp` ranks.

    rs: its partials of the other tp - 1 owners' row chunks, M*N*elem*(tp-1)/tp.
    ar: that, then its owned chunk of the sum to the other tp - 1 ranks: twice as much
        (M*N*elem in all at TP2).
    Floored to whole bytes when M*N*elem*(tp-1) is not a multiple of tp.
    """
    shots = {"rs": 1, "ar": 2}.get(mode)
    if shots is None:
        raise ValueError(f"mode {mode!r}: link bytes are defined for 'rs' and 'ar'")
    if min(M, N, tp, elem_bytes) < 1:
        raise ValueError(f"M={M}, N={N}, tp={tp}, elem_bytes={elem_bytes}: each must be >= 1")
    return shots * M * N * elem_bytes * (tp - 1) // tp


def transfer_us(nbytes, gbps) -> float | None:
    """Microseconds to move `nbytes` at `gbps` GB/s (None without a usable bandwidth)."""
    return nbytes / (gbps * 1e3) if _finite(nbytes) and _finite(gbps) and gbps > 0 else None


def gbps(nbytes, us) -> float | None:
    """GB/s (1e9 B/s) of `nbytes` moved in `us` microseconds (None without a usable time)."""
    return nbytes / (us * 1e3) if _finite(nbytes) and _finite(us) and us > 0 else None


def physical_bound(row: dict) -> dict:
    """{link_bytes, link_us, phys_us, phys_eff, tuned_phys_eff} of a summarized row (its mode, M,
    N, tp, gemm_us, link_gbps, fused_us and tuned); a value that cannot be had is None."""
    nbytes = link_bytes(row["mode"], row["M"], row["N"], row["tp"])
    t_link = transfer_us(nbytes, row.get("link_gbps"))
    t_gemm = row.get("gemm_us")
    t_phys = max(t_gemm, t_link) if _finite(t_gemm) and _finite(t_link) else None
    tuned = row.get("tuned") or {}

    def eff(us):
        return t_phys / us if t_phys is not None and _finite(us) and us > 0 else None
    return {"link_bytes": nbytes, "link_us": t_link, "phys_us": t_phys,
            "phys_eff": eff(row.get("fused_us")), "tuned_phys_eff": eff(tuned.get("us"))}


def time_breakdown(row: dict) -> dict:
    """{gemm_eff, exposed_us, overlap} of a row from its gemm_us (T_gemm), ours_gemm_us,
    link_us (T_link, from :func:`physical_bound`) and fused_us; see the module docstring. A
    value whose inputs are missing, not finite or not > 0 is None (exposed_us may be < 0)."""
    t_gemm, ours, t_link, fused = (row.get(k) for k in ("gemm_us", "ours_gemm_us", "link_us",
                                                          "fused_us"))
    ok = [_finite(v) and v > 0 for v in (t_gemm, ours, t_link, fused)]
    gemm_eff = t_gemm / ours if ok[0] and ok[1] else None
    exposed = fused - max(ours, t_link) if all(ok[1:]) else None
    overlap = (min(1.0, max(0.0, 1.0 - exposed / min(ours, t_link)))
               if exposed is not None else None)
    return {"gemm_eff": gemm_eff, "exposed_us": exposed, "overlap": overlap}


class PeerCopy:
    """`nbytes` (rounded down to 16 bytes) of torch symmetric memory on every rank, filled with
    rank + 1, and a local tensor to copy the peer's buffer into. Collective: every rank
    constructs it, and every rank calls :meth:`finish` before dropping it (a peer may still be
    reading this rank's buffer until then)."""

    def __init__(self, torch, dist, device, nbytes: int, symm=None):
        if symm is None:
            import torch.distributed._symmetric_memory as symm
        from codegen.runtime.symm_group import _rendezvous

        words = nbytes // 16 * 4
        if words < 4:
            raise ValueError(f"{nbytes} bytes: the probe needs at least 16")
        self.torch, self.device, self.nbytes = torch, device, words * 4
        rank, tp = dist.get_rank(), dist.get_world_size()
        self.peer = (rank + 1) % tp
        self.mine = symm.empty(words, dtype=torch.int32, device=device)
        self.handle = _rendezvous(symm, self.mine, dist.group.WORLD.group_name)
        self.mine.fill_(rank + 1)
        self.src = self.handle.get_buffer(self.peer, (words,), torch.int32)
        self.dst = torch.zeros(words, dtype=torch.int32, device=device)
        torch.cuda.synchronize(device)  # the fill lands before any peer's barrier and read

    def calls(self) -> dict:
        """{"sm": an elementwise kernel, "memcpy": copy_ (cudaMemcpyAsync)}: peer -> local."""
        torch, src, dst = self.torch, self.src, self.dst
        return {"sm": lambda: torch.bitwise_or(src, 0, out=dst),
                "memcpy": lambda: dst.copy_(src)}

    def check(self, call) -> None:
        """Zero the local tensor, run `call` once, and raise ValueError unless it now holds the
        peer's fill (peer + 1 in every word)."""
        self.dst.zero_()
        call()
        bad = int((self.dst != self.peer + 1).sum())
        if bad:
            raise ValueError(f"the copy from rank {self.peer} is wrong in {bad} of "
                             f"{self.dst.numel()} words")

    def finish(self) -> None:
        """Wait for this rank's copies (then a host collective tells every peer it may free)."""
        self.torch.cuda.synchronize(self.device)


def link_note(link: dict | None) -> str:
    """One sentence on how T_link was had, for the table's caption."""
    if not link or not _finite(link.get("gbps")):
        why = (link or {}).get("error") or "no probe result"
        return f"T_link, T_phys and eff not measured ({why[:200]})."
    other = [f"{c} {link[c + '_gbps']:.0f} GB/s" for c in COPIES
             if c != link["copy"] and _finite(link.get(c + "_gbps"))]
    return (f"T_link = bytes each GPU sends over NVLink (RS: M*N*2*(tp-1)/tp, AR: twice that) / "
            f"{link['gbps']:.0f} GB/s per GPU ({link['copy']} copy of {link['bytes'] / 2**20:.0f} "
            f"MiB from the peer's symmetric buffer, every rank at once, slowest rank"
            + (f"; {', '.join(other)}" if other else "") + "); T_phys = max(T_gemm, T_link); "
            "eff = T_phys / fused (1.0 = at the bound).")


def breakdown_note(measured: bool = True) -> str:
    """One sentence defining the ours GEMM, gemm_eff and exposed columns, for the caption."""
    if not measured:
        return "ours GEMM, gemm_eff and exposed not measured (--no-ours-gemm)."
    return ("ours GEMM = our kernel's plain GEMM alone (GemmRsAr mode none with the fused "
            "row's schedule, BN, CTA group and SM budget; same M, N, K; every rank at once, "
            "slowest rank, timed like the rest); gemm_eff = T_gemm / ours GEMM (torch.mm vs "
            "ours; < 1: ours slower); exposed = fused - max(ours GEMM, T_link): the time the "
            "exchange adds beyond the slower of our GEMM and the link (< 0: faster than that "
            "bound); JSON overlap = 1 - exposed / min(ours GEMM, T_link), clipped to [0, 1] "
            "(1: the shorter one fully hidden, 0: no better than back to back).")
