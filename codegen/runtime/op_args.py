"""The checks of GemmRsAr's constructor arguments: every knob bounded, each failure an
InputError naming the argument and its value (before anything is allocated or launched)."""
from __future__ import annotations

import math
import os
from pathlib import Path

from codegen import contract
from codegen import env as codegen_env

from .errors import InputError

#: What a group passed to GemmRsAr must have (the Group interface's attributes).
GROUP_ATTRS = ("tp", "device", "mode", "max_M", "N", "sm_budget", "local_ranks")

#: Largest accepted `timeout_ms` (one hour; CODEGEN_WAIT_TIMEOUT_MS has the same bound): the
#: bound must fit the kernel's u64 nanoseconds with room, and a wait longer than this is a hang
#: by any serving standard.
MAX_TIMEOUT_MS = codegen_env.MAX_WAIT_TIMEOUT_MS

#: The kernels' 32-bit limit: they compute row, column and k indices, tile counts and TMA
#: coordinates in signed 32-bit integers (the DSL's Int32; the `m` parameter and the
#: `tma_*_shape` coordinate tensors are i32 too).
INT32_MAX = 2**31 - 1
#: Largest max_M, N and K. The index sums stay below 2^31 up to here: ceil(M / 256) is
#: (m + 255) // 256, ceil(K / 64) is (k + 63) // 64, a W tile's last column nt * 192 + 191, ...
#: (e.g. M = 2^31 - 100 would make the tile kernel's row-tile count negative: nothing stored).
MAX_EXTENT = 2**30
#: Largest count of 128 x 128 output tiles (ceil(max_M / 128) x ceil(N / 128)): the tile and
#: splitkw kernels number their work items (row tiles x column tiles) in 32 bits, and a CTA's
#: persistent loop steps past the last one by up to its grid.
MAX_OUTPUT_TILES = 2**30


def _int_arg(name: str, value, lo: int, hi: float = math.inf, allow_none: bool = False):
    """An int argument in [lo, hi] (None allowed when `allow_none`), else InputError."""
    if value is None and allow_none:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        bound = f"[{lo}, {hi}]" if hi != math.inf else f">= {lo}"
        raise InputError(f"{name} = {value!r} must be an int {bound}")
    return value


def check_int32_extents(max_M: int, N: int, K: int) -> None:
    """InputError where the kernels' 32-bit index arithmetic cannot hold the op's shape
    (MAX_EXTENT, MAX_OUTPUT_TILES), before anything is allocated or launched."""
    for name, value in (("max_M", max_M), ("N", N), ("K", K)):
        if value > MAX_EXTENT:
            raise InputError(f"{name} = {value} exceeds {MAX_EXTENT} (2^30): the kernels compute "
                             f"row, column and k indices and TMA coordinates in 32-bit signed "
                             f"integers, which overflow past that (wrong results: at M = "
                             f"2^31 - 100 the tile kernel stored nothing); "
                             f"split the GEMM into calls of at most {MAX_EXTENT} "
                             f"{'rows' if name == 'max_M' else 'columns' if name == 'N' else 'K'}")
    tiles = contract.cdiv(max_M, contract.BM) * contract.cdiv(N, contract.MIN_BN)
    if tiles > MAX_OUTPUT_TILES:
        raise InputError(f"max_M = {max_M} x N = {N} is {tiles} output tiles of 128 x 128, more "
                         f"than the {MAX_OUTPUT_TILES} (2^30) the kernels number in 32-bit "
                         f"integers; split the GEMM into calls with fewer rows or columns")


def check_group_int32_extents(group) -> None:
    """InputError where a group's buffers are addressed past the kernels' 32-bit rows or words:
    the rs/ar kernels address both workspace parities as rows [0, 2 x workspace_rows) (TMA
    coordinates, the reduction's row numbers) and the flag area's words in 32 bits."""
    rows_pad = contract.rows_pad(group.max_M)
    rows = 2 * contract.workspace_rows(rows_pad, group.tp)
    if rows > INT32_MAX:
        raise InputError(f"group.max_M = {group.max_M}: the workspace's two parities span {rows} "
                         f"rows (2 x (rows_pad {rows_pad} + tp {group.tp} x "
                         f"{contract.PUSH_GUARD} guard rows)), past the kernels' 32-bit row "
                         f"coordinates (at most {INT32_MAX}); build the group with a smaller "
                         f"max_M")
    words = contract.flag_words(group.max_M, group.N, group.tp)
    if words > INT32_MAX:
        raise InputError(f"group.max_M = {group.max_M}, N = {group.N}, tp = {group.tp}: the flag "
                         f"area has {words} words, past the kernels' 32-bit word index (at most "
                         f"{INT32_MAX}); build the group with a smaller max_M")


def path_arg(name: str, value) -> Path | None:
    """A cache_dir / manifest argument as a Path with '~' expanded (as CODEGEN_CACHE_DIR and
    CODEGEN_MANIFEST are), None for None; InputError for an empty one (it would mean the
    current directory) or one that is no path."""
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)):
        raise InputError(f"{name} = {value!r} must be a path (str or os.PathLike) or None, not a "
                         f"{type(value).__name__}")
    text = os.fspath(value)
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"{name} = {value!r} must be a non-empty path (an empty one would mean "
                         f"the current directory); pass None for the default")
    try:
        return Path(text).expanduser()
    except RuntimeError as exc:  # ~user of no such user, or ~ with no home directory
        raise InputError(f"{name} = {value!r}: cannot expand '~' ({exc})") from None


def check_op_args(max_M, N, K, mode, group, *, bn, cta_group, sm_budget, transport, schedule,
                  arch, min_m, timeout_ms) -> None:
    """Raise InputError on the first argument GemmRsAr cannot use."""
    if mode not in contract.MODES:
        raise InputError(f"mode = {mode!r} must be one of {contract.MODES}")
    _int_arg("max_M", max_M, 1)
    _int_arg("N", N, 1)
    _int_arg("K", K, 1)
    check_int32_extents(max_M, N, K)
    if K % contract.K_MULTIPLE:
        raise InputError(f"K = {K} must be a positive multiple of {contract.K_MULTIPLE} (16-byte "
                         f"rows of x and W, as TMA needs)")
    if schedule is not None and schedule not in contract.SCHEDULES:
        raise InputError(f"schedule = {schedule!r} must be one of {contract.SCHEDULES} or None")
    if (schedule is not None and arch in contract.ARCHS
            and arch not in contract.SCHEDULE_ARCHS[schedule]):
        raise InputError(f"schedule = {schedule!r} exists for "
                         f"{', '.join(contract.SCHEDULE_ARCHS[schedule])} only, not arch = {arch!r}")
    if schedule in ("splitkw", "swapabx", "streamk") and mode != "none":
        raise InputError(f"schedule = {schedule!r} exists for mode 'none' only, not mode = "
                         f"{mode!r} (rs/ar: leave schedule None, or 'tile' / 'swapab' / 'splitk')")
    arch_or_any = arch if arch in contract.ARCHS else None
    if schedule is not None:
        bns = contract.schedule_bns(arch_or_any, mode, schedule)
    else:
        bns = tuple(sorted({b for s in contract.SCHEDULES
                            for b in contract.schedule_bns(arch_or_any, mode, s)}))
    for name, value in (("bn", bn), ("cta_group", cta_group)):
        # (a float 128.0 or a numpy integer compares equal to a width, but Variant refuses it:
        # a SpecError at the first call instead of an InputError here)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise InputError(f"{name} = {value!r} must be an int or None, not a "
                             f"{type(value).__name__}")
    if bn is not None and bn not in bns:
        raise InputError(f"bn = {bn!r} must be one of {bns} or None")
    if schedule is None:    # e.g. a width only the decode kernels have names their schedule
        schedule = contract.implied_schedule(bn, cta_group)
        implied_bns = contract.schedule_bns(arch_or_any, mode, schedule) if schedule else ()
        if bn is not None and schedule is not None and bn not in implied_bns:
            raise InputError(f"bn = {bn!r}: the {schedule} kernels (named by cta_group = "
                             f"{cta_group!r}) have widths {list(implied_bns)} only")
    cgs = (contract.ALL_CTA_GROUPS if schedule is None
           else contract.schedule_cta_groups(arch_or_any, schedule))
    if cta_group is not None and cta_group not in cgs:
        raise InputError(f"cta_group = {cta_group!r}: the {schedule or 'any'} schedule has "
                         f"cta_group {list(cgs)} only")
    if schedule == "swapab" and cta_group is not None:
        modes_cgs = contract.swapab_cta_groups(arch_or_any or "sm_90a", mode)
        if cta_group not in modes_cgs:
            raise InputError(f"cta_group = {cta_group!r}: the swapab schedule in mode {mode!r} has "
                             f"cta_group {list(modes_cgs)} only (3, the 192-row W tile, is mode "
                             f"none on sm_90a)")
        cg_bns = contract.swapab_cta_group_bns(arch_or_any or "sm_90a", mode, cta_group)
        if bn is not None and bn not in cg_bns:
            raise InputError(f"bn = {bn!r}: the swapab kernels with cta_group {cta_group} have "
                             f"token tiles {list(cg_bns)} only")
    if schedule == "streamk":
        pairs = contract.streamk_pairs()
        if not any((bn is None or b == bn) and (cta_group is None or c == cta_group)
                   for b, c in pairs):
            raise InputError(f"bn = {bn!r}, cta_group = {cta_group!r}: the streamk kernels are "
                             f"(bn, cta_group) {pairs} only")
    if schedule in contract.KSPLIT_SCHEDULES:
        cg = cta_group if cta_group is not None else min(contract.schedule_cta_groups(
            arch_or_any, schedule))
        if K < contract.splitk_min_k(cg):
            other = "'swapab'" if schedule == "splitk" else "'tile'"
            raise InputError(f"K = {K} is too small for the {schedule} schedule with cta_group "
                             f"{cg}: it needs K >= {contract.splitk_min_k(cg)} (one k-tile of "
                             f"{contract.BK} per CTA of the cluster); use schedule {other}")
    multiple = contract.n_multiple(arch, mode)
    if N % multiple:
        where = (" on sm_100a" if arch == "sm_100a" else
                 f" in mode {mode!r} (mode 'none' on sm_90a: of {contract.N_MULTIPLE_NONE})"
                 if mode != "none" else "")
        raise InputError(f"N = {N} must be a positive multiple of {multiple}{where}")
    # (schedule is the one bn / cta_group imply where none was given)
    # (arch None: any arch's tile kernels may serve N; op.arch checks the device's)
    archs = (arch_or_any,) if arch_or_any else contract.ARCHS
    if schedule == "tile" and bn is not None and \
            not any(contract.tile_fits_n(N, bn, a, mode) for a in archs):
        raise InputError(f"N = {N} must be a positive multiple of {bn}")
    # (bn None: every N the checks above pass has a tile width, dividing it or, on sm_90a,
    # reaching past it: contract.tile_widths)
    # a decode schedule whose W tiles must divide N (contract.decode_fits_n): the cta_group
    # given, or without one splitk / swapabx (every cluster size has 64-row W tiles; swapab's default
    # cta_group is one that serves N, dispatch.swapab_cta_group)
    cgs = ((cta_group,) if cta_group is not None else
           (min(contract.schedule_cta_groups(arch_or_any, schedule)),)
           if schedule in ("splitk", "swapabx") else ())
    if contract.decode_schedule(schedule) and cgs and \
            not contract.decode_fits_n(N, cgs[0], arch, schedule, mode):
        rows = (contract.SWAPAB_BM if schedule in ("splitk", "swapabx")
                else contract.swapab_w_rows(cgs[0]))
        named = f" with cta_group {cta_group}" if cta_group is not None else ""
        raise InputError(f"N = {N} is no multiple of {rows}: the {schedule} kernels{named} "
                         f"cannot serve it (their W tiles are {rows} rows); leave schedule and "
                         f"cta_group to the dispatcher (the tile schedule, the wide decode "
                         f"kernels, cta_group 2 / 3, and in mode none on sm_90a splitk / "
                         f"splitkw reach past N)")
    if transport is not None and transport not in contract.TRANSPORTS:
        raise InputError(f"transport = {transport!r} must be one of {contract.TRANSPORTS} or None")
    if arch is not None and arch not in contract.ARCHS:
        raise InputError(f"arch = {arch!r} must be one of {contract.ARCHS} or None")
    _int_arg("sm_budget", sm_budget, 1, allow_none=True)
    _int_arg("min_m", min_m, 1, allow_none=True)
    _int_arg("timeout_ms", timeout_ms, 1, MAX_TIMEOUT_MS, allow_none=True)
    if mode == "none":
        if group is not None:
            raise InputError(f"mode 'none' is a plain GEMM on the current stream and takes no "
                             f"group (got a {type(group).__name__}); leave group None and pass "
                             f"device= for its device")
        return
    if group is None:
        raise InputError(f"mode = {mode!r} needs a group")
    missing = [a for a in GROUP_ATTRS if not hasattr(group, a)]
    if missing:
        raise InputError(f"group must be a codegen.runtime Group (e.g. VirtualGroup or "
                         f"SymmMemGroup), got a {type(group).__name__} without "
                         f"{', '.join(missing)}")
    sizes = {a: getattr(group, a) for a in ("tp", "max_M", "N", "sm_budget")}
    bad = [f"group.{a} = {v!r}" for a, v in sizes.items()
           if not isinstance(v, int) or isinstance(v, bool) or v < 1]
    if bad:
        raise InputError(f"{', '.join(bad)}: the Group interface's tp, max_M, N and sm_budget "
                         f"are ints >= 1 (e.g. sm_budget = SMs - sm_margin with an int margin)")
    if group.mode != mode:
        raise InputError(f"group.mode = {group.mode!r} does not match mode = {mode!r}")
    if group.N != N:
        raise InputError(f"group.N = {group.N} does not match N = {N}")
    if group.max_M < max_M:
        raise InputError(f"group.max_M = {group.max_M} is smaller than max_M = {max_M}")
    check_group_int32_extents(group)
    if sm_budget is not None and sm_budget > group.sm_budget:
        raise InputError(f"sm_budget = {sm_budget} exceeds the group's sm_budget = "
                         f"{group.sm_budget} (its share of the device's SMs: with more CTAs the "
                         f"ranks' persistent grids are not all resident at once, and every call "
                         f"times out); pass at most {group.sm_budget}, or None")
