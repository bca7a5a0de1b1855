"""The measured dispatch table: which (schedule, BN, cta_group) is fastest at each M.

A table is measured on real GPUs (``tools/bench_multi_gpu.py --tune-out <cache root>``) for one
(arch, mode, tp, N, K) and lives beside the deployment manifests::

    <cache root>/tuning/<arch>_<mode>_tp<tp>_n<N>_k<K>.json

    {"format": 1, "arch": "sm_90a", "mode": "ar", "tp": 2, "N": 7168, "K": 768,
     "device": "NVIDIA H200", "date": "...", "command": "...",
     "rows": [{"M": 16, "schedule": "swapab", "bn": 16, "cta_group": 1, "fused_us": 10.1,
               "best_unfused_us": 19.2, "best_unfused": "symm_two_shot"}, ...],
     "crossover_m": 16}

Mode ``none`` tables have tp 1. ``crossover_m`` is the smallest measured M from which the
fused kernel was never slower than the best unfused path (null when it loses at the largest
M); it must agree with the rows. Parsing is strict: a malformed file raises
:class:`TuningError` naming the file and the problem. Standard library only.
"""
from __future__ import annotations

import bisect
import json
import math
import os
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from codegen import contract
from codegen.entry_format import FormatError, read_json, write_atomic

FORMAT = 1
MAX_TABLE_BYTES = 1 << 20
#: Kernel schedules (the variant spec's axis, from the contract): "tile" tiles N by `bn`;
#: "swapab", "splitk" and "splitkw" are the schedules whose `bn` is the token tile (per arch, mode
#: and schedule: contract.schedule_bns).
SCHEDULES = contract.SCHEDULES
CTA_GROUPS = contract.CTA_GROUPS

_KEYS = ("format", "arch", "mode", "tp", "N", "K", "device", "date", "command", "rows",
         "crossover_m")
_ROW_KEYS = ("M", "schedule", "bn", "cta_group", "fused_us", "best_unfused_us", "best_unfused")


class TuningError(FormatError):
    """A tuning table that does not follow the format; ``str()`` names the file and problem."""


def swapab_bn(M: int, arch: str = "sm_90a", mode: str = "rs") -> int:
    """The token tile of the (arch, mode) swapab kernels for M rows: the smallest one >= M, else
    the largest."""
    from .dispatch import swapab_token_tile

    return swapab_token_tile(M, bns=contract.swapab_bns(arch, mode))


#: Most token tiles per W tile a swept swapab candidate may loop over (the W tile is re-read
#: from L2 per token tile; in exchange, the push of one token tile overlaps the next one's MMA).
MAX_TOKEN_TILES = 8


def candidates(M: int, N: int, arch: str = "sm_90a", mode: str = "rs",
               K: int | None = None) -> list[tuple[str, int, int]]:
    """Every (schedule, bn, cta_group) a sweep of an (arch, mode) op times at M: the tile
    schedule at each BN that serves N (contract.tile_widths: those dividing N, else, on sm_90a,
    every width, the last N tile reaching past N; mode none on sm_90a: every width, as its
    dispatch weighs them, contract.tile_widths_serving) and each CTA group, and the swapab
    schedule (for M up to
    the contract's SWAPAB_MAX_ROWS) at every token tile of the (arch, mode) kernels from the one
    that covers M in one tile down to M / MAX_TOKEN_TILES, with each of its CTA groups; given K,
    also the splitk schedule (where the arch has it) at its token tiles in the same range and
    each cluster size that K allows (contract.splitk_min_k), and at every M the splitkw schedule
    (mode none where the arch has it) at each token tile and cluster size K allows; given a K
    whose rows are off the 128-byte lines (as a sweep's contiguous tensors have them), the
    swapabx schedule (mode none where the arch has it, N a multiple of 64) at its token tiles in
    that range and each cluster size (on lines it measured slower than swapab: not swept)."""
    from .dispatch import rows_aligned, tile_widths, token_tile_span

    widths = (contract.tile_widths_serving(N, arch, mode) if mode == "none" else ()) \
        or tile_widths(N, arch, mode)
    out = [("tile", bn, cg) for bn in widths for cg in CTA_GROUPS]
    if K is not None:   # splitkw (mode none, sm_90a) at every M: each token tile and cluster size
        out += [("splitkw", bt, cg) for bt in contract.splitkw_bns(arch, mode)
                for cg in contract.SPLITKW_CTA_GROUPS if K >= contract.splitk_min_k(cg)]
    if M > contract.SWAPAB_MAX_ROWS:
        return out
    # (each decode kernel only where its W tiles serve N, contract.decode_fits_n: at an N no
    # multiple of 64 (mode none on sm_90a) the wide kernels, cta_group 2 / 3, and splitk)
    out += [("swapab", bt, cg)
            for bt in token_tile_span(M, contract.swapab_bns(arch, mode), MAX_TOKEN_TILES)
            for cg in contract.SWAPAB_CTA_GROUPS[arch]
            if contract.decode_kernel_exists(arch, mode, bt, cg)
            and contract.decode_fits_n(N, cg, arch)]
    if K is not None and not rows_aligned(K) and contract.swapabx_bns(arch, mode) \
            and contract.decode_fits_n(N, 2, arch, "swapabx", mode):
        out += [("swapabx", bt, cg)
                for bt in token_tile_span(M, contract.swapabx_bns(arch, mode), MAX_TOKEN_TILES)
                for cg in contract.SWAPABX_CTA_GROUPS]
    if K is None or arch not in contract.SCHEDULE_ARCHS["splitk"]:
        return out
    return out + [("splitk", bt, cg)
                  for bt in token_tile_span(M, contract.splitk_bns(arch, mode), MAX_TOKEN_TILES)
                  for cg in contract.SPLITK_CTA_GROUPS if K >= contract.splitk_min_k(cg)
                  and contract.decode_fits_n(N, cg, arch, "splitk", mode)]


def crossover_m(points) -> int | None:
    """Smallest M from which fused is never slower (speed-up >= 1 for it and every larger M);
    `points` = [(M, speedup)]. None when fused loses at the largest M (or no points)."""
    best = None
    for M, s in sorted(points, reverse=True):
        if s < 1.0:
            break
        best = M
    return best


def table_name(arch: str, mode: str, tp: int, N: int, K: int) -> str:
    return f"{arch}_{mode}_tp{tp}_n{N}_k{K}.json"


def table_path(root, arch: str, mode: str, tp: int, N: int, K: int) -> Path:
    """Where the table of (arch, mode, tp, N, K) lives under cache root `root`."""
    return Path(root) / "tuning" / table_name(arch, mode, tp, N, K)


@dataclass(frozen=True)
class Row:
    M: int
    schedule: str
    bn: int
    cta_group: int
    fused_us: float
    best_unfused_us: float
    best_unfused: str

    @property
    def speedup(self) -> float:
        """Best unfused time over fused time (> 1: fused is faster)."""
        return self.best_unfused_us / self.fused_us


@dataclass(frozen=True)
class TuningTable:
    arch: str
    mode: str
    tp: int
    N: int
    K: int
    device: str
    date: str
    command: str
    rows: tuple[Row, ...]   # ascending M
    crossover_m: int | None
    path: Path | None = None

    @classmethod
    def load(cls, path) -> TuningTable:
        """Parse and check the table at `path`; TuningError on anything malformed."""
        path = Path(path)
        try:
            doc = read_json(path, MAX_TABLE_BYTES)
        except FormatError as e:
            raise TuningError(path, e.problem) from None
        return cls.from_dict(doc, path)

    @classmethod
    def from_dict(cls, doc, path=None, derive_crossover: bool = False) -> TuningTable:
        """A table from its parsed JSON; TuningError (naming `path`) if it breaks the format.
        With `derive_crossover` the stored crossover_m is replaced by the one the rows give."""
        where = Path(path) if path is not None else Path("<tuning table>")
        try:
            return cls._parse(doc, where, derive_crossover)
        except _Bad as e:
            raise TuningError(where, str(e)) from None

    @classmethod
    def _parse(cls, doc, path: Path, derive_crossover: bool) -> TuningTable:
        _check_keys(doc, _KEYS, "the table")
        if doc["format"] != FORMAT or isinstance(doc["format"], bool):
            raise _Bad(f"format is {doc['format']!r}, this reader knows {FORMAT}")
        arch = _choice(doc, "arch", contract.ARCHS)
        mode = _choice(doc, "mode", contract.MODES)
        tp = _int(doc, "tp", 1)
        if (mode == "none") != (tp == 1):
            raise _Bad(f"tp is {tp}, mode {mode!r} needs " + ("1" if mode == "none" else ">= 2"))
        multiple = contract.n_multiple(arch, mode)
        N, K = _int(doc, "N", multiple), _int(doc, "K", contract.K_MULTIPLE)
        if N % multiple:
            raise _Bad(f"N is {N}, not a multiple of {multiple}")
        if K % contract.K_MULTIPLE:
            raise _Bad(f"K is {K}, not a multiple of {contract.K_MULTIPLE}")
        device, date, command = (_str(doc, k) for k in ("device", "date", "command"))
        if not isinstance(doc["rows"], list) or not doc["rows"]:
            raise _Bad("rows must be a non-empty list")
        rows = sorted((_row(r, i, N, arch, mode) for i, r in enumerate(doc["rows"])),
                      key=lambda r: r.M)
        dup = [a.M for a, b in zip(rows, rows[1:]) if a.M == b.M]
        if dup:
            raise _Bad(f"M = {dup[0]} has more than one row")
        computed = crossover_m((r.M, r.speedup) for r in rows)
        stored = computed if derive_crossover else doc["crossover_m"]
        if stored is not None and (not isinstance(stored, int) or isinstance(stored, bool)):
            raise _Bad(f"crossover_m is {stored!r}, not an int or null")
        if stored != computed:
            raise _Bad(f"crossover_m is {stored!r} but the rows give {computed!r}")
        return cls(arch, mode, tp, N, K, device, date, command, tuple(rows), stored, path)

    @property
    def ms(self) -> tuple[int, ...]:
        return tuple(r.M for r in self.rows)

    def row(self, M: int) -> Row:
        """The row of the smallest measured M >= `M`; above the largest, the largest row."""
        if not isinstance(M, int) or isinstance(M, bool) or M < 1:
            raise ValueError(f"M = {M!r} must be an int >= 1")
        i = bisect.bisect_left(self.ms, M)
        return self.rows[min(i, len(self.rows) - 1)]

    def choice(self, M: int) -> tuple[str, int, int]:
        """(schedule, bn, cta_group) for a call with M rows (see :meth:`row`)."""
        r = self.row(M)
        return r.schedule, r.bn, r.cta_group

    def to_dict(self) -> dict:
        head = {"format": FORMAT, "arch": self.arch, "mode": self.mode, "tp": self.tp,
                "N": self.N, "K": self.K, "device": self.device, "date": self.date,
                "command": self.command}
        return {**head, "rows": [asdict(r) for r in self.rows], "crossover_m": self.crossover_m}


def find_table(root, arch: str, mode: str, tp: int, N: int, K: int) -> TuningTable | None:
    """The table of (arch, mode, tp, N, K) under cache root `root`, or None when there is none.

    A file that is there but malformed, or whose contents name another configuration, raises
    TuningError.
    """
    path = table_path(root, arch, mode, tp, N, K)
    if not os.path.lexists(path):
        return None
    table = TuningTable.load(path)
    want = {"arch": arch, "mode": mode, "tp": tp, "N": N, "K": K}
    wrong = [f"{k} is {getattr(table, k)!r}, expected {v!r}" for k, v in want.items()
             if getattr(table, k) != v]
    if wrong:
        raise TuningError(path, "names another configuration: " + ", ".join(wrong))
    return table


def write_table(path, *, arch: str, mode: str, tp: int, N: int, K: int, rows,
                device: str = "", command: str = "", date: str | None = None) -> TuningTable:
    """Check and write a table atomically (temp file + rename); returns the table written.

    `rows` are dicts with the keys of :class:`Row` (or Rows); crossover_m is derived from them.
    The directory is created if needed. TuningError if the table would be malformed.
    """
    path = Path(path)
    if date is None:
        date = datetime.now(timezone.utc).isoformat(timespec="seconds")
    doc = {"format": FORMAT, "arch": arch, "mode": mode, "tp": tp, "N": N, "K": K,
           "device": device, "date": date, "command": command,
           "rows": [asdict(r) if isinstance(r, Row) else r for r in rows], "crossover_m": None}
    table = TuningTable.from_dict(doc, path, derive_crossover=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, (json.dumps(table.to_dict(), indent=1) + "\n").encode())
    return table


# ---- strict field checks -----------------------------------------------------------------------
class _Bad(Exception):
    """One problem found while parsing (turned into a TuningError naming the file)."""


def _check_keys(doc, keys: tuple[str, ...], what: str) -> None:
    if not isinstance(doc, dict):
        raise _Bad(f"{what} is a {type(doc).__name__}, not an object")
    missing = [k for k in keys if k not in doc]
    extra = sorted(k for k in doc if k not in keys)
    if missing or extra:
        raise _Bad(f"{what}: " + "; ".join(
            (["missing " + ", ".join(missing)] if missing else [])
            + (["unknown " + ", ".join(map(str, extra))] if extra else [])))


def _int(doc: dict, key: str, lo: int, where: str = "") -> int:
    v = doc[key]
    if not isinstance(v, int) or isinstance(v, bool) or v < lo:
        raise _Bad(f"{where}{key} is {v!r}, not an int >= {lo}")
    return v


def _choice(doc: dict, key: str, allowed: tuple, where: str = ""):
    v = doc[key]
    if not isinstance(v, (str, int)) or isinstance(v, bool) or v not in allowed:
        raise _Bad(f"{where}{key} is {v!r}, not one of {', '.join(map(str, allowed))}")
    return v


def _str(doc: dict, key: str, where: str = "", nonempty: bool = False) -> str:
    v = doc[key]
    if not isinstance(v, str) or (nonempty and not v):
        raise _Bad(f"{where}{key} is {v!r}, not a " + ("non-empty " if nonempty else "") + "string")
    return v


def _us(doc: dict, key: str, where: str) -> float:
    v = doc[key]
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v <= 0:
        raise _Bad(f"{where}{key} is {v!r}, not a finite time > 0")
    return float(v)


def _row(doc, i: int, N: int, arch: str, mode: str) -> Row:
    where = f"rows[{i}]: "
    _check_keys(doc, _ROW_KEYS, f"rows[{i}]")
    M = _int(doc, "M", 1, where)
    schedule = _choice(doc, "schedule", SCHEDULES, where)
    if not contract.schedule_bns(arch, mode, schedule):
        raise _Bad(f"{where}schedule {schedule!r} has no {arch} {mode} kernels (splitkw and "
                   f"swapabx: mode none on {', '.join(contract.SCHEDULE_ARCHS['splitkw'])} only)")
    bn = _choice(doc, "bn", contract.schedule_bns(arch, mode, schedule), where)
    cg = _choice(doc, "cta_group", contract.schedule_cta_groups(arch, schedule), where)
    if schedule == "tile" and not contract.tile_fits_n(N, bn, arch, mode):
        raise _Bad(f"{where}the tile kernels of width {bn} do not serve N = {N} (no multiple "
                   f"of {bn}, and no {arch} {mode} tile kernel reaches past N)")
    if contract.decode_schedule(schedule) and not contract.decode_fits_n(N, cg, arch, schedule,
                                                                          mode):
        raise _Bad(f"{where}the {schedule} kernels with cta_group {cg} do not serve N = {N}")
    if schedule == "swapab" and not contract.decode_kernel_exists(arch, mode, bn, cg):
        raise _Bad(f"{where}no {arch} {mode} swapab kernel has token tile {bn} with cta_group "
                   f"{cg} (cta_group 3: mode none on sm_90a, token tiles "
                   f"{list(contract.SWAPAB_CG3_BNS)})")
    return Row(M, schedule, bn, cg, _us(doc, "fused_us", where), _us(doc, "best_unfused_us", where),
               _str(doc, "best_unfused", where, nonempty=True))
