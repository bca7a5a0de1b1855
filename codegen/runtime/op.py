"""GemmRsAr: the fused GEMM + reduce-scatter / all-reduce op (and mode 'none', plain GEMM).

One instance per (max_M, N, K, mode, group). Per call it validates the inputs (before any
launch), picks BN / CTA group / grid (dispatch.py), finds the variant's cubin in the cache,
packs the parameters of KERNEL-CONTRACT.md by name and launches on the rank's stream.
"""
from __future__ import annotations

import contextlib
import logging
import operator
from collections.abc import Mapping
from pathlib import Path

import torch

from codegen import contract
from codegen import env as codegen_env
from codegen.spec import SpecError, Variant

from . import dispatch
from . import stream_order
from . import streamk_buffers
from .call_plan import CallPlan, current_stream_handle
from .cache_index import build_command, find_entry
from .driver import stream_capturing
from .errors import CacheMissError, DriverError, InputError
from .group import Group, launch_lock
from .health import RankHealth
from .kernel import LoadedKernel, load_kernel
from .launch_plan import CallTensors, Descriptors, kernel_arguments
from .op_args import check_op_args, path_arg
from .transport import choose_transport
from .tuning import find_table
from .validate import (check_m, check_matrix, check_no_grad, check_no_overlap, check_out,
                       check_rank, check_rank_outputs, matrix_ok)

log = logging.getLogger(__name__)

#: Launch plans kept per op (one per (rank, M[, rows of x and W aligned, rows of W aligned, rows
#: on 32-byte sectors]) seen; cleared when full).
_PLANS_MAX = 4096


class GemmRsAr:
    """Fused `x_r @ W_r^T` + reduce-scatter ('rs') / all-reduce ('ar'), or plain GEMM ('none').

    Args:
        max_M: largest M a call may pass (sizes nothing here: the group's buffers are sized
            by the group's max_M, which must be >= this).
        N, K: weight shape [N, K] (K is per rank).
        mode: 'rs' | 'ar' | 'none'. 'none' takes no group (launches on the current stream).
        group: a Group (e.g. VirtualGroup) with the same mode and N (rs / ar only).
        bn, cta_group: fix the tile width / CTA group instead of dispatching on M (a width
            that both schedules have, e.g. 160 / 192 in mode none on sm_90a, names the decode
            schedule unless `schedule` says 'tile': contract.implied_schedule).
        schedule: fix the tile schedule, 'tile', 'swapab' (the decode schedule, for M up to
            the group's landing rows; its `bn` is the token tile) or 'splitk' (the decode
            schedule with K split over a cluster of `cta_group` CTAs, 2 or 4; sm_90a), or
            (mode none, sm_90a) 'splitkw', 'swapabx' or 'streamk' (the tile kernel at BN 192 /
            256 in clusters along M with the last waves' k-tiles spread over the CTAs),
            instead of dispatching on M.
        sm_budget: cap of the persistent grid (default: the group's, and at most that: the
            group's share keeps every rank's grid resident; all SMs for 'none').
        transport: 'unicast' | 'multicast' | None (multicast when available, else unicast).
        arch: 'sm_90a' | 'sm_100a' (default: from the device's compute capability).
        min_m: should_run() threshold on M (default: the tuning table's measured verdict per
            M for this shape, else dispatch.default_should_run(M, K)).
        timeout_ms: bound of every in-kernel wait, 1..op_args.MAX_TIMEOUT_MS (default
            CODEGEN_WAIT_TIMEOUT_MS).
        cache_dir: cache root (default CODEGEN_CACHE_DIR).
        manifest: load kernels only through this deployment manifest (default
            CODEGEN_MANIFEST; a bare file name is looked up in <cache root>/manifests/), instead
            of the newest build of each variant.
        device: device of a group-less 'none' op: an int, 'cuda:N', or 'cuda' / None for the
            current device ('cpu' builds an op that validates and dispatches but never
            launches: the CPU tests' stand-in).

    Inference only: with grad mode on, an x, weight or out that requires grad is an
    InputError. Thread-safe per group: a launch section (one call's launch, or run_all's
    launches over every rank) holds the group's lock (group.launch_lock), so two threads'
    calls on one group never interleave their ranks' launches.
    """

    def __init__(self, max_M: int, N: int, K: int, mode: str, group: Group | None = None,
                 bn: int | None = None, cta_group: int | None = None, sm_budget: int | None = None,
                 transport: str | None = None, *, schedule: str | None = None,
                 arch: str | None = None, min_m: int | None = None,
                 timeout_ms: int | None = None, cache_dir: str | Path | None = None,
                 manifest: str | Path | None = None,
                 device: int | str | torch.device | None = None):
        check_op_args(max_M, N, K, mode, group, bn=bn, cta_group=cta_group, sm_budget=sm_budget,
                      transport=transport, schedule=schedule, arch=arch, min_m=min_m,
                      timeout_ms=timeout_ms)
        cache_dir, manifest = path_arg("cache_dir", cache_dir), path_arg("manifest", manifest)
        if group is not None and group.tp not in contract.TPS:
            # no kernel exists for this TP (e.g. torchrun --nproc-per-node 1 or 3): a SpecError
            # now, which make_fused_or_fallback / TPContext turn into the unfused path, instead
            # of at the first call or prepare()
            raise SpecError(f"tp={group.tp} is not supported; allowed: "
                            f"{', '.join(map(str, contract.TPS))} (kernels are built per TP)")
        settings = codegen_env.load()
        self.max_M, self.N, self.K, self.mode, self.group = max_M, N, K, mode, group
        self.fixed_bn, self.fixed_cta_group, self.fixed_schedule = bn, cta_group, schedule
        self.min_m = min_m
        self.tp = group.tp if group is not None else 1
        if group is not None:
            self.device = _group_device(group)
        else:
            self.device = _op_device(device)  # None: resolved at first use (no GPU needed now)
        self._launch_lock = launch_lock(group) if group is not None else None
        self._sm_budget = sm_budget
        self._arch = arch
        self._transport_req = transport
        self._transport = None if mode != "none" else "none"
        self.timeout_ns = int(timeout_ms if timeout_ms is not None else settings.wait_timeout_ms) * 1_000_000
        self.cache_dir = Path(cache_dir) if cache_dir is not None else settings.cache_dir
        pinned = Path(manifest) if manifest is not None else settings.manifest
        if pinned is not None and len(pinned.parts) == 1:
            pinned = self.cache_dir / "manifests" / pinned
        self.manifest = pinned
        self._table = None  # the tuning table, read at first use (False: none for this shape)
        self._kernels: dict[str, LoadedKernel] = {}
        self._absent: set[str] = set()   # variants a rule names whose kernel did not load
        # {schedule: {cluster size: clusters the device holds}} of splitk / splitkw, found at
        # first use (_cluster_slots)
        self._slots: dict[str, dict[int, int]] = {}
        self._descriptors = Descriptors()
        self._plans: dict[tuple[int, int, bool | None, bool | None, bool | None], CallPlan] = {}
        self._layout_hinted = False   # the weight-layout hint is logged once per op (_plan)
        self.health = RankHealth(group, self._device, self._streamk_buffers)
        self.last_launch: dict[int, dict] = {}  # rank -> {variant, bn, cta_group, grid}
        # the arguments as resolved here, but the device (copy, deepcopy and pickle build a new
        # op from them and self.device: _copy_kwargs)
        self._init_kwargs = dict(
            max_M=max_M, N=N, K=K, mode=mode, group=group, bn=bn, cta_group=cta_group,
            sm_budget=sm_budget, transport=transport, schedule=schedule, arch=arch, min_m=min_m,
            timeout_ms=self.timeout_ns // 1_000_000, cache_dir=self.cache_dir,
            manifest=self.manifest)

    # ---- copies: a new op of the same arguments ------------------------------------------------
    # An op holds per-process device state (loaded kernels, packed launch plans with raw
    # pointers into their own buffers); copying that state field by field fails on the ctypes
    # buffers or the group's lock, so a copy is a new op built from the same arguments.
    def __copy__(self) -> "GemmRsAr":
        """A new op of the same arguments on the same group (launch plans are rebuilt; kernels
        are loaded once per process and shared)."""
        return type(self)(**self._copy_kwargs())

    def _copy_kwargs(self) -> dict:
        """The arguments a copy is built from: the op's, with its device as resolved by now (a
        mode-none op's `device=None` binds at the first call to the current device; a copy made
        later must not bind to whatever device is current then)."""
        return dict(self._init_kwargs, device=self.device)

    def __deepcopy__(self, memo) -> "GemmRsAr":
        """As copy.copy: the group is shared, never copied (its buffers are mapped by its peers;
        a copy of it would be a group nobody else talks to)."""
        new = memo[id(self)] = self.__copy__()
        if self.group is not None:   # the same group wherever else the copied object holds it
            memo.setdefault(id(self.group), self.group)
        return new

    def __reduce__(self):
        """Pickle a mode-none op as its arguments; an op over a group cannot leave its process."""
        if self.group is not None:
            raise TypeError(f"a GemmRsAr over a group ({type(self.group).__name__}) cannot be "
                            f"pickled: the group's buffers are mapped by its peers' processes; "
                            f"build the op and its group in the process that uses them")
        return _rebuild_op, (self._copy_kwargs(),)

    # ---- public queries -------------------------------------------------------------------
    @property
    def local_ranks(self) -> tuple[int, ...]:
        return self.group.local_ranks if self.group is not None else (0,)

    def can_run(self, weight) -> bool:
        """Whether `weight` fits this op: bf16, 2-D [N, K], row-major, aligned, on the device."""
        try:
            check_matrix("weight", weight, self._device(), self.N, self.K)
        except InputError:
            return False
        return True

    def should_run(self, x) -> bool:
        """Whether the fused kernel is worth it for `x` (else the caller uses torch.mm + the
        collective). With `min_m`: M >= min_m. Otherwise, with a tuning table for this shape:
        whether fused beat the best unfused path at the table's row for M (the smallest
        measured M >= M), so a fused win at decode sizes and a loss in between are both
        honoured; without one: dispatch.default_should_run (the measured pattern of the
        shapes that have tables)."""
        if not (isinstance(x, torch.Tensor) and x.dim() == 2 and 1 <= x.shape[0] <= self.max_M):
            return False
        M = x.shape[0]
        if M > self.max_served_m:
            return False
        if self._known_arch() is None and torch.cuda.is_available():
            return False            # e.g. N no multiple of 128 on sm_100a: no kernel serves it
        if self.min_m is not None:
            return M >= self.min_m
        table = self.tuning_table()
        if table is None:
            return dispatch.default_should_run(M, self.K)
        return table.row(M).speedup >= 1.0

    def tuning_table(self):
        """The measured dispatch table of this op's (arch, mode, tp, N, K) under the cache root
        (tools/bench_multi_gpu.py and tools/bench_decode.py --tune-out write it), or None. A
        malformed table raises TuningError, like a corrupt cache entry."""
        if self._table is None:
            if self._arch is None and not torch.cuda.is_available():
                return None  # no device to name the arch: the built-in rules
            tp = self.tp if self.mode != "none" else 1
            self._table = find_table(self.cache_dir, self.arch, self.mode, tp, self.N, self.K) or False
        return self._table or None

    @property
    def max_served_m(self) -> int:
        """The most rows a call may have: max_M (always for an op fixed to splitkw), or where the
        tile schedule cannot serve N (no
        width divides it and its last N tile cannot reach past N, contract.tile_widths: only
        while the arch is not known yet, since sm_90a reaches past N and sm_100a takes N % 128
        == 0), or where the op's schedule is fixed to a decode one, only what the decode
        schedules serve (the landing rows, at most contract.SWAPAB_MAX_ROWS)."""
        if self._fixed_schedule() in ("splitkw", "streamk"):   # (any M, any N a multiple of 8)
            return self.max_M
        if contract.tile_widths(self.N, self._known_arch(), self.mode) and not self._fixed_decode():
            return self.max_M
        return min(self.max_M, self.land_rows, contract.SWAPAB_MAX_ROWS)

    def _fixed_schedule(self) -> str | None:
        """The op's fixed schedule: the one given, else the one a fixed bn / cta_group implies
        (contract.implied_schedule), else None (the dispatcher decides)."""
        if self.fixed_schedule is not None:
            return self.fixed_schedule
        return contract.implied_schedule(self.fixed_bn, self.fixed_cta_group)

    def _fixed_decode(self) -> bool:
        """Whether the op's fixed schedule is a decode schedule, which serves only the landing
        rows."""
        return contract.decode_schedule(self._fixed_schedule())

    def out_shape(self, M: int) -> tuple[int, int]:
        return contract.out_shape(self.mode, M, self.N, self.tp)

    @property
    def land_rows(self) -> int:
        """The largest M the decode (swapab) schedule can serve: the group's landing rows."""
        if self.group is None:
            return contract.SWAPAB_MAX_ROWS
        return contract.land_rows(self.group.max_M)

    def choice(self, M: int, aligned: bool | None = None,
               weight_aligned: bool | None = None,
               sectors: bool | None = None) -> tuple[str, int, int]:
        """(schedule, BN, cta_group) a call with M rows uses: the tuning table's measured choice
        when one exists and nothing is fixed, else dispatch.py's rules. `aligned`: whether every
        row of the call's x and weight starts on a 128-byte line (row strides multiples of 64
        and 128-byte start addresses, as _plan reads them; None: as contiguous tensors of K
        columns have them), which mode none's wave-fill rule weighs
        (dispatch.choose_swapabx, dispatch.choose_none_unaligned). A table was measured on
        contiguous tensors of K columns: a call whose rows lie otherwise (`aligned` not what K
        gives, e.g. a ragged K kept in 128-byte-row buffers) takes the rules instead (the
        kernels' speeds differ by up to 2x between the layouts: BENCHMARKS.md, nineteenth
        session). `weight_aligned`: whether the weight's rows alone are on the lines (None: as
        `aligned` says); only x's off them (a weight re-laid once, as RowParallelLinear does)
        takes the rules of rows on the lines after choose_swapabx
        (dispatch.WEIGHT_ON_LINES_RULE), and no table unless contiguous tensors lie so too.
        `sectors`: whether every row of x and the weight starts on a 32-byte sector, which the
        model of rows off the lines prices (dispatch.UNALIGNED_L2_SHARE_SECTOR_ROWS; None: as K
        columns apart give them, or where K's rows are on the lines and the call's are not,
        priced as 16 bytes off).
        InputError for an M that is not a positive int (a call refuses those before this)."""
        try:
            rows = None if isinstance(M, bool) else operator.index(M)   # (numpy ints too)
        except TypeError:
            rows = None
        if rows is None or rows < 1:
            raise InputError(f"choice(M): M = {M!r} must be a positive int (the rows of a call)")
        M = rows
        unfixed = (self.fixed_schedule, self.fixed_bn, self.fixed_cta_group) == (None, None, None)
        contiguous_layout = dispatch.rows_aligned(self.K)
        on_lines = contiguous_layout if aligned is None else aligned
        w_on_lines = on_lines if weight_aligned is None else weight_aligned or on_lines
        table = (self.tuning_table() if unfixed and on_lines == contiguous_layout
                 and w_on_lines == contiguous_layout else None)
        if table is not None:
            schedule, bn, cg = table.choice(M)
            usable = (schedule == "tile"
                      or ((schedule == "splitkw" or M <= self.land_rows)
                          and self.arch in contract.SCHEDULE_ARCHS[schedule]))
            if schedule in contract.KSPLIT_SCHEDULES:
                usable = usable and self.K >= contract.splitk_min_k(cg)
            if usable and contract.choice_fits_n(self.N, schedule, bn, cg, self.arch, self.mode):
                return schedule, bn, cg
        known = self._sm_budget is not None or self.group is not None or torch.cuda.is_available()
        if unfixed and known:
            if self.mode == "none":
                # (the swapabx / splitkw kernels are loaded here only for a call that may take
                # them: rows off the lines, choose_swapabx / choose_none_unaligned)
                by_fill = dispatch.choose_none_by_fill(M, self.N, self.arch, self.sm_budget,
                                                       self.land_rows, K=self.K,
                                                       cluster_slots=LazySlots(self.splitk_slots),
                                                       aligned=on_lines,
                                                       xcast_slots=None if on_lines
                                                       else self.swapabx_slots(),
                                                       splitkw_slots=None if on_lines
                                                       else self.splitkw_slots(),
                                                       weight_aligned=w_on_lines,
                                                       sectors=sectors)
            else:
                by_fill = dispatch.choose_fused_by_fill(M, self.N, self.mode, self.arch,
                                                        self.sm_budget, self.land_rows, self.tp,
                                                        K=self.K,
                                                        cluster_slots=LazySlots(
                                                            self.splitk_slots))
            if by_fill is not None:
                return self._streamk_instead(M, by_fill)
        schedule = dispatch.choose_schedule(M, self.arch, self.land_rows, self._fixed_schedule(),
                                            self.mode)
        if schedule in contract.KSPLIT_SCHEDULES:
            return schedule, *dispatch.splitk_default(M, self.K, self.fixed_bn,
                                                      self.fixed_cta_group, self.arch, self.mode,
                                                      schedule)
        if schedule == "streamk":   # (fixed)
            return schedule, *dispatch.streamk_default(M, self.fixed_bn, self.fixed_cta_group)
        if schedule == "swapabx":   # (fixed) the smallest token tile >= M, clusters of 2
            return schedule, *dispatch.swapabx_default(M, self.fixed_bn, self.fixed_cta_group,
                                                       self.arch, self.mode)
        if schedule == "swapab":
            bt = dispatch.swapab_default_token_tile(M, self.mode, self.fixed_bn, self.arch,
                                                    self.fixed_cta_group)
            return schedule, bt, dispatch.swapab_cta_group(self.fixed_cta_group, M, self.mode,
                                                           self.arch, self.N)
        ctas = self.sm_budget if self.fixed_bn is None and known else None
        bn, cg = dispatch.choose_tile(M, self.N, self.fixed_bn, self.fixed_cta_group, ctas,
                                      self.mode, self._known_arch(), on_lines)
        if unfixed and known and self.mode == "none":
            split = dispatch.choose_none_splitkw(M, self.N, self.K, self.arch, self.sm_budget,
                                                 self.splitkw_slots())
            if split is not None:
                return split
        if unfixed and known:
            return self._streamk_instead(M, (schedule, bn, cg))
        return schedule, bn, cg

    def _streamk_instead(self, M: int, choice: tuple[str, int, int]) -> tuple[str, int, int]:
        """Mode none: dispatch.streamk_instead's replacement of the rules' pick where its
        kernel loads here (a cache built before it lacks it; no GPU: named as the rule says)."""
        if self.mode != "none":
            return choice
        alt = dispatch.streamk_instead(M, choice, self.arch)
        if alt is choice or not torch.cuda.is_available():
            return alt
        v = Variant(self.arch, "none", None, alt[1], alt[2], None, schedule=alt[0])
        if v.name not in self._kernels and v.name not in self._absent:
            try:
                self.kernel(v)
            except (CacheMissError, DriverError):
                self._absent.add(v.name)
        return choice if v.name in self._absent else alt

    def config(self, M: int) -> tuple[int, int]:
        """(BN, cta_group) a call with M rows uses."""
        return self.choice(M)[1:]

    @property
    def arch(self) -> str:
        """The kernels' arch: the one given, else the device's (InputError on a device no
        kernel serves, or an N its kernels cannot serve)."""
        if self._arch is None:
            cap = torch.cuda.get_device_capability(self._device())
            if cap not in contract.ARCH_OF_CAPABILITY:
                raise InputError(f"device {self._device()} has compute capability {cap}; "
                                 f"kernels exist for {sorted(contract.ARCH_OF_CAPABILITY)} only")
            arch = contract.ARCH_OF_CAPABILITY[cap]
            if self.N % contract.n_multiple(arch, self.mode):
                raise InputError(f"N = {self.N} must be a multiple of "
                                 f"{contract.n_multiple(arch, self.mode)} on {arch}")
            fixed = self._fixed_schedule()
            if fixed is not None and arch not in contract.SCHEDULE_ARCHS[fixed]:
                raise InputError(f"schedule = {fixed!r} exists for "
                                 f"{', '.join(contract.SCHEDULE_ARCHS[fixed])} only, not "
                                 f"{arch} (device {self._device()})")
            if (fixed == "tile" and self.fixed_bn is not None
                    and not contract.tile_fits_n(self.N, self.fixed_bn, arch, self.mode)):
                # (checked without the arch at construction: another arch's tiles may reach
                # past N)
                raise InputError(f"N = {self.N} must be a positive multiple of "
                                 f"{self.fixed_bn} on {arch} (its {self.mode} tile kernels "
                                 f"cannot reach past N)")
            self._arch = arch
        return self._arch

    @property
    def transport(self) -> str:
        """'unicast' | 'multicast' for rs/ar ('none' for mode none); decided once."""
        if self._transport is None:
            self._transport = self._choose_transport()
        return self._transport

    @property
    def sm_budget(self) -> int:
        """CTAs of the persistent grid: the op's `sm_budget`, else the group's, else all SMs.
        An explicit budget above the device's SM count is an InputError (ranks would not all
        be resident, and their waits would time out)."""
        if self._sm_budget is not None:
            if torch.cuda.is_available():
                sms = torch.cuda.get_device_properties(self._device()).multi_processor_count
                if self._sm_budget > sms:
                    raise InputError(f"sm_budget = {self._sm_budget} exceeds the {sms} SMs of "
                                     f"{self._device()}")
            return self._sm_budget
        if self.group is not None:
            return self.group.sm_budget
        return torch.cuda.get_device_properties(self._device()).multi_processor_count

    def variant(self, M: int, aligned: bool | None = None,
                weight_aligned: bool | None = None, sectors: bool | None = None) -> Variant:
        schedule, bn, cg = self.choice(M, aligned, weight_aligned, sectors)
        if self.mode == "none":
            return Variant(self.arch, "none", None, bn, cg, None, schedule=schedule)
        return Variant(self.arch, self.mode, self.transport, bn, cg, self.tp, schedule=schedule)

    # ---- kernels ----------------------------------------------------------------------------
    def splitk_slots(self) -> dict[int, int]:
        """{cluster size: clusters of it the device holds at once (rs/ar: this rank's share)} of
        the mode's splitk kernels this op can load (LoadedKernel.max_active_clusters), which the
        wave-fill rule weighs; empty where it can load none (no GPU, another arch, a cache built
        before them, or a manifest without them), so the rule never picks a kernel that is not
        there."""
        return self._cluster_slots("splitk")

    def splitkw_slots(self) -> dict[int, int]:
        """The same for the splitkw kernels (mode none, sm_90a), which the splitkw rules weigh."""
        return self._cluster_slots("splitkw")

    def swapabx_slots(self) -> dict[int, int]:
        """The same for the swapabx kernels (mode none, sm_90a), which choose_swapabx weighs."""
        return self._cluster_slots("swapabx")

    def _cluster_slots(self, schedule: str) -> dict[int, int]:
        """splitk_slots / splitkw_slots / swapabx_slots: found once per op, from the kernel of
        each cluster size at the schedule's first token tile; rs/ar (splitk only): the mode's
        kernel, its clusters shared by the ranks this process drives on the device (a
        VirtualGroup's tp; one rank per GPU: all of them)."""
        if schedule not in self._slots:
            slots = {}
            fused = self.mode != "none"
            if ((not fused or schedule == "splitk") and torch.cuda.is_available()
                    and self.arch in contract.SCHEDULE_ARCHS[schedule]
                    and dispatch.fill_rule_applies(self.arch)):
                bns = contract.schedule_bns(self.arch, self.mode, schedule)
                for ks in contract.schedule_cta_groups(self.arch, schedule) if bns else ():
                    held = self._clusters_held(schedule, bns, ks)
                    if held is not None:
                        slots[ks] = held // len(self.local_ranks) if fused else held
            self._slots[schedule] = slots
        return self._slots[schedule]

    def _clusters_held(self, schedule: str, bns: tuple[int, ...], ks: int) -> int | None:
        """Clusters of `ks` CTAs of the schedule's kernels the device holds at once, read from
        the first of its token tiles `bns` whose kernel loads (every one plans its shared
        memory to the full CTA, one per SM: the same count; a cache built before a token tile
        was added still has the others); None where none loads."""
        fused = self.mode != "none"
        for bt in bns:
            v = Variant(self.arch, self.mode, self.transport if fused else None, bt, ks,
                        self.tp if fused else None, schedule=schedule)
            try:
                return self.kernel(v).max_active_clusters
            except (CacheMissError, DriverError):
                continue
        return None

    def kernel(self, variant: Variant) -> LoadedKernel:
        """The loaded kernel of `variant` (from the cache; CacheMissError names the build)."""
        k = self._kernels.get(variant.name)
        if k is None:
            cmd = build_command(variant.arch, variant.mode, variant.tp if variant.tp else None)
            entry = find_entry(self.cache_dir, variant.arch, variant.name, cmd, self.manifest)
            try:
                k = load_kernel(entry, self._device().index)
            except ValueError as exc:  # an ABI or variant the runtime cannot use
                raise CacheMissError(variant.name, cmd, f"entry {entry.dir}: {exc}") from None
            why = k.contract_mismatch(self.N)
            if why:
                raise CacheMissError(variant.name, cmd, f"entry {entry.dir} was built by an "
                                     f"older codegen: {why}")
            if k.device_index is None:   # device 'cpu': nothing to load the cubin on
                raise _not_cuda(self._device())
            k.function  # load now, not inside a later graph capture
            self._kernels[variant.name] = k
        return k

    def prepare(self, Ms=None) -> list[str]:
        """Load every variant the calls with rows `Ms` (default: every dispatch choice) need.

        Call it before CUDA-graph capture, or at start-up to surface cache misses early.
        """
        if Ms is None:
            # every M where a choice may change: each token-tile step of the decode range, each
            # 128-row tile step above (the BN rule counts waves of 128-row tiles), the table's
            # rows; choice() is arithmetic, so this costs microseconds, not launches
            Ms = {1, self.max_M, *range(16, contract.SWAPAB_MAX_ROWS + 1, 16),
                  *range(contract.BM, self.max_M + contract.BM, contract.BM)}
            table = self.tuning_table()
            Ms |= set(table.ms) if table is not None else set()
            Ms = [m for m in Ms if m <= self.max_served_m]
        else:
            Ms = _prepare_ms(Ms, self.max_served_m)
        names = []
        for M in sorted(set(Ms)):
            # mode none: x's and W's rows on 128-byte lines, only W's, neither (on 32-byte
            # sectors or not) (the call's row strides and addresses pick)
            for layout in (((True, True, None), (False, True, None), (False, False, True),
                            (False, False, False))
                           if self.mode == "none" else ((None, None, None),)):
                v = self.variant(M, *layout)
                self.kernel(v)
                names.append(v.name)
        return sorted(set(names))

    # ---- calls ------------------------------------------------------------------------------
    def __call__(self, rank: int, x: torch.Tensor, weight: torch.Tensor,
                 out: torch.Tensor | None = None) -> torch.Tensor:
        """Launch rank `rank`'s kernel on its stream and return its output tensor.

        RS: [ceil(M/tp), N]; AR and none: [M, N]. With a group whose `stream(rank)` is not the
        current stream (virtual groups), the rank stream first waits on the current stream,
        and the caller must make its stream wait for the rank streams (:meth:`join`) before
        using or freeing `out`; :meth:`run_all` does both.
        """
        self.health.check()
        M = self._validate(rank, x, weight)
        if out is None:
            out = x.new_empty(self.out_shape(M))  # x: bf16 on the op's device (validated)
        else:
            check_out(out, self.out_shape(M), self._device())
            check_no_overlap("out", out, x=x, weight=weight)
        lock = self._launch_lock  # the group's (mode none: None, it shares no buffers)
        if lock is None:
            self._launch(rank, x, weight, out, M)
        else:
            lock.acquire()
            try:
                self._launch(rank, x, weight, out, M)
            finally:
                lock.release()
        return out

    def run_all(self, xs, weights, out=None) -> list[torch.Tensor]:
        """Launch every local rank (virtual group) and make the current stream wait for them.

        `xs[r]`, `weights[r]` are rank r's inputs; `out` optionally gives the output tensors
        (e.g. poisoned ones in tests). Every input is validated before the first launch; the
        rank streams wait on the current stream first, so this also works under CUDA-graph
        capture.
        """
        ranks = self.local_ranks
        n_xs, n_ws = _count("xs", xs, len(ranks)), _count("weights", weights, len(ranks))
        if n_xs != len(ranks) or n_ws != len(ranks):
            raise InputError(f"run_all needs one x and one weight per local rank ({len(ranks)}), "
                             f"got {n_xs} and {n_ws}")
        if out is not None and _count("out", out, len(ranks)) != len(ranks):
            raise InputError(f"out must hold {len(ranks)} tensors, got {len(out)}")
        self.check_errors()
        Ms = [self._validate(r, x, w) for r, x, w in zip(ranks, xs, weights)]
        if len(set(Ms)) != 1:
            raise InputError(f"every rank must pass the same M, got {Ms}")
        shape = self.out_shape(Ms[0])
        if out is None:
            out = [torch.empty(shape, dtype=torch.bfloat16, device=self._device()) for _ in ranks]
        else:
            check_rank_outputs(out, shape, self._device(), xs, weights)
        ready = self._ready_event()
        # every rank's launch under the group's lock: another thread's launches on this group
        # must not land between them (each rank's stream would run the calls in another order)
        with self._launch_lock or _NO_LOCK:
            for r, x, w, o in zip(ranks, xs, weights, out):
                self._launch(r, x, w, o, Ms[0], ordered_after=ready)
            self.join()
        return list(out)

    def _ready_event(self) -> torch.cuda.Event:
        """One event recorded on the caller's stream before any launch of a run_all: a rank
        stream must never wait on work enqueued after another rank's kernel (it would
        serialise the ranks, which spin on each other)."""
        dev = self._device()
        if dev.type != "cuda":
            raise _not_cuda(dev)
        with torch.cuda.device(dev):
            ready = torch.cuda.Event()
            ready.record(torch.cuda.current_stream(dev))
        return ready

    def join(self) -> None:
        """Make the current stream wait for every local rank's stream (during a CUDA-graph
        capture: every rank stream that joined the capture, i.e. whose rank was called in it;
        waiting on another would be a dependency on uncaptured work, which invalidates the
        capture)."""
        if self.group is None:
            return
        cur = torch.cuda.current_stream(self._device())
        capturing = None
        for r in self.local_ranks:
            s = self.group.stream(r)
            if s is not None and s != cur:
                if capturing is None:
                    capturing = torch.cuda.is_current_stream_capturing()
                if capturing and not stream_capturing(s.cuda_stream):
                    continue
                cur.wait_stream(s)

    # ---- errors ----------------------------------------------------------------------------
    def check_errors(self) -> None:
        """Raise KernelTimeoutError if any local rank's error record is set (no device sync);
        `.others` holds the other ranks' errors (see health.RankHealth.check)."""
        self.health.check()

    def synchronize(self) -> None:
        """Wait for every local rank's stream (or the device), then :meth:`check_errors`."""
        self.health.wait()
        self.health.check()

    def reset_errors(self) -> None:
        """Clear every local rank's error record (waits for the rank streams first); mode none:
        the device's streamk error record and every stream's flags (streamk_buffers). A
        group's abort word and epochs stay as the time-out left them: recover with
        `group.reset_state()` (TPContext.recover()) on every rank, or the next call's waits
        give up at once."""
        self.health.reset()

    # ---- internals --------------------------------------------------------------------------
    def _known_arch(self) -> str | None:
        """The arch when it is given or the device names one this op can run on, else None
        (the dispatcher then weighs the tile widths every arch has, contract.BNS)."""
        if self._arch is None and torch.cuda.is_available():
            try:
                self.arch
            except InputError:
                return None
        return self._arch

    def _device(self) -> torch.device:
        if self.device is None:
            self.device = torch.device("cuda", torch.cuda.current_device())
        return self.device

    def _choose_transport(self) -> str:
        if self.mode == "none":
            return "none"
        return choose_transport(self.group, self.mode, self._transport_req, self._device().index)

    def _validate(self, rank, x, weight) -> int:
        dev = self._device()
        try:
            ok = matrix_ok(x, dev, None, self.K) and matrix_ok(weight, dev, self.N, self.K)
        except RuntimeError:  # a tensor without strides or storage (sparse CSR): named below
            ok = False
        if not ok:
            check_matrix("x", x, dev, None, self.K)    # raises, naming what is wrong
            check_matrix("weight", weight, dev, self.N, self.K)
        if _grad_enabled() and (x.requires_grad or weight.requires_grad):
            check_no_grad("x", x)
            check_no_grad("weight", weight)
        M = x.shape[0]
        if not 1 <= M <= self.max_M:
            check_m(M, self.max_M)
        if rank not in self.local_ranks or type(rank) is not int:
            check_rank(rank, self.local_ranks, self.tp)
        return M

    def _streamk_buffers(self):
        """The device's streamk buffers where a streamk launch created them, else None (an op
        that has not run yet binds to the current device here, as its first call would)."""
        if self.device is None and not torch.cuda.is_available():
            return None
        return streamk_buffers.existing(self._device())

    def _params(self, rank: int, x, weight, out, M: int, kern: LoadedKernel,
                grid: int = 0) -> dict:
        """Exactly the kernel's contract parameters, by name (launch_plan.kernel_arguments)."""
        tensors = CallTensors(x, weight, out, M, self.N, self.K)
        if self.mode == "none":
            sk = None
            if kern.variant.schedule == "streamk":
                sk = streamk_buffers.of_device(self._device())
                if not sk.fits(grid):   # (launch_grid caps the grid at the SMs)
                    raise InputError(f"a streamk grid of {grid} CTAs exceeds the {sk.ctas} "
                                     f"partial tiles of {self._device()}'s workspace")
            return kernel_arguments(kern, tensors, self._descriptors, timeout_ns=self.timeout_ns,
                                    streamk=sk)
        return kernel_arguments(kern, tensors, self._descriptors, self.group, rank,
                                self.transport, self.timeout_ns)

    def _plan(self, rank: int, x, weight, out, M: int) -> CallPlan:
        """The launch plan of (rank, M) and, in mode none, whether every row of the weight and
        of x starts on a 128-byte line and, where not, on a 32-byte sector (the fill rule weighs
        both), built on the first call with that key (everything it holds is fixed by the key:
        dispatch, kernel, grid, group pointers; see call_plan)."""
        # the weight's rows and x's on 128-byte lines: row strides (dispatch.rows_aligned,
        # inline: the per-call path; a single row of x has none) and start addresses; off them,
        # on 32-byte sectors (dispatch.sector_rows)
        if self.mode != "none":
            w_aligned = aligned = sectors = None
        else:
            # (each read at most once, x's only where W's rows start on sectors: these are the
            # per-call path's torch calls)
            ws, wa = weight.stride(0), weight.data_ptr()
            w_aligned = ws % 64 == 0 and wa % 128 == 0
            if ws % 16 == 0 and wa % 32 == 0:
                xs, xa = 0 if M == 1 else x.stride(0), x.data_ptr()
                aligned = w_aligned and xs % 64 == 0 and xa % 128 == 0
                sectors = None if aligned else xs % 16 == 0 and xa % 32 == 0
            else:
                aligned = sectors = False
        key = (rank, M, aligned, w_aligned, sectors)
        plan = self._plans.get(key)
        if plan is not None:
            return plan
        if not self._layout_hinted and (weight.stride(0) % 64 or weight.data_ptr() % 128):
            self._layout_hinted = True
            log.info("GemmRsAr(N=%d, K=%d, %s): the weight's rows do not start on 128-byte lines "
                     "(row stride %d elements, address %% 128 = %d), which the kernels read more "
                     "slowly (mode none on one H200 at random shapes: 0.89x torch.mm against "
                     "1.03x with the weight re-laid; BENCHMARKS.md, twenty-first session). "
                     "Re-lay it once: codegen.runtime.weight_in_aligned_rows(weight) "
                     "(RowParallelLinear does by default).", self.N, self.K, self.mode,
                     weight.stride(0), weight.data_ptr() % 128)
        if M > self.max_served_m and not self._fixed_decode():
            # (not reached once the arch is known: sm_90a's tiles reach past N, sm_100a takes
            # N % 128 == 0; kept so a call can never run past what max_served_m promised)
            raise InputError(f"x.shape[0] (M) = {M} exceeds {self.max_served_m}: no tile-schedule "
                             f"width {contract.known_tile_bns(self._known_arch(), self.mode)} "
                             f"serves N = {self.N} here, so only the decode schedules do, up to "
                             f"{self.max_served_m} rows (use torch.mm + the collective for more; "
                             f"should_run(x) says False)")
        variant = self.variant(M, aligned, w_aligned, sectors)
        if contract.decode_schedule(variant.schedule) and M > self.land_rows:
            where = (f"the {self.land_rows} landing rows of the {variant.schedule} schedule "
                     f"(group max_M {self.group.max_M})" if self.group is not None else
                     f"the {self.land_rows} rows the {variant.schedule} schedule serves")
            raise InputError(f"x.shape[0] (M) = {M} exceeds {where}; for more rows leave "
                             f"schedule and bn to the dispatcher (schedule=None and a bn the tile "
                             f"schedule has, or none: it serves any M)")
        if (variant.schedule in contract.KSPLIT_SCHEDULES
                and self.K < contract.splitk_min_k(variant.cta_group)):
            raise InputError(f"K = {self.K} is too small for {variant.name}: the "
                             f"{variant.schedule} schedule with cta_group {variant.cta_group} "
                             f"needs K >= {contract.splitk_min_k(variant.cta_group)}")
        kern = self.kernel(variant)
        # (streamk: every CTA must be resident, so its clusters too are bounded by the device's)
        max_clusters = (kern.max_active_clusters
                        if variant.schedule in contract.CLUSTER_SCHEDULES
                        or (variant.schedule == "streamk" and kern.cluster[0] > 1) else None)
        grid = dispatch.launch_grid(variant, kern.entry.meta["launch"], kern.cluster[0], M, self.N,
                                    self.sm_budget, max_clusters, self.K)
        tensors = CallTensors(x, weight, out, M, self.N, self.K)
        plan = CallPlan(kern, grid, self._params(rank, x, weight, out, M, kern, grid), tensors,
                        self._descriptors, self.group, rank)
        plan.info = {"variant": variant.name, "schedule": variant.schedule, "bn": variant.bn,
                     "cta_group": variant.cta_group, "grid": grid}
        if len(self._plans) >= _PLANS_MAX:
            self._plans.clear()
        self._plans[key] = plan
        return plan

    def _launch(self, rank: int, x, weight, out, M: int, ordered_after=None) -> None:
        """Launch one rank; the caller holds the group's lock (group.launch_lock). A rank with
        a stream of its own (virtual groups) first waits on `ordered_after` (an event recorded
        on the caller's stream before any rank launched) or, without one, on the current
        stream; otherwise it launches on the current stream."""
        dev = self._device()
        s = self.group.stream(rank) if self.group is not None and self.mode != "none" else None
        if dev.type == "cuda" and torch.cuda.current_device() != dev.index:
            # (the plan too: building it may load a kernel, query its occupancy and make the
            # device's streamk buffers, each on this device, not the caller's current one)
            with torch.cuda.device(dev):
                plan = self._plan(rank, x, weight, out, M)
                self._launch_on(plan, rank, x, weight, out, s, ordered_after)
        else:
            plan = self._plan(rank, x, weight, out, M)
            if dev.type != "cuda":
                raise _not_cuda(dev)
            self._launch_on(plan, rank, x, weight, out, s, ordered_after)
        self.health.last_variant[rank] = plan.info["variant"]
        self.last_launch[rank] = plan.info

    def _launch_on(self, plan: CallPlan, rank: int, x, weight, out, s, ordered_after) -> None:
        dev = self.device
        sk = None
        if s is None:
            handle = current_stream_handle(dev.index)
            if self.group is not None and self.mode != "none":
                # the group's buffers are shared by its calls: keep them in order across
                # the caller's streams (stream_order.py)
                stream_order.of_group(self.group).before_launch(handle)
            elif plan.info["schedule"] == "streamk":
                # the stream's streamk set (streamk_buffers: one per stream, eager or captured,
                # shared past SETS_MAX streams: then ordered like a group's calls, under the
                # set's lock)
                sk = streamk_buffers.of_device(dev).for_launch(handle)
        else:
            cur = torch.cuda.current_stream(dev)
            if s != cur:  # inputs (and out's allocation) are ordered on `cur`
                if ordered_after is not None:
                    s.wait_event(ordered_after)  # run_all: its join orders every free after
                else:
                    s.wait_stream(cur)
                    # a single call returns before the caller joins: the allocator must not
                    # hand these tensors' memory out again (freed on `cur`) until `s` is done
                    x.record_stream(s)
                    weight.record_stream(s)
                    out.record_stream(s)
            handle = s.cuda_stream
        with sk.lock if sk is not None else _NO_LOCK:
            if sk is not None:
                sk.order.before_launch(handle)
            # validate.row_stride of x and the weight, inline (the per-call path; a plan is
            # per M)
            plan.launch(x.data_ptr(), weight.data_ptr(), out.data_ptr(), handle,
                        x.stride(0) if plan.M > 1 else self.K, weight.stride(0), sk)


_grad_enabled = torch.is_grad_enabled

#: Stands in for a group's lock in run_all of a group-less op (mode none shares no buffers).
_NO_LOCK = contextlib.nullcontext()


class LazySlots(Mapping):
    """The {cluster size: clusters} of an op's splitk kernels, found (op.splitk_slots: kernels
    loaded) at the first read only: the dispatch reads them only where choose_splitk gets past
    its N / K bounds, so an op whose shapes never take splitk (e.g. N > 4096) loads none."""

    def __init__(self, find):
        self._find = find
        self._slots: dict[int, int] | None = None

    def _got(self) -> dict[int, int]:
        if self._slots is None:
            self._slots = self._find()
        return self._slots

    def __getitem__(self, ks: int) -> int:
        return self._got()[ks]

    def __iter__(self):
        return iter(self._got())

    def __len__(self) -> int:
        return len(self._got())


def _rebuild_op(kwargs: dict) -> GemmRsAr:
    """A mode-none op from its pickled arguments (GemmRsAr.__reduce__)."""
    return GemmRsAr(**kwargs)


def _count(name: str, seq, ranks: int) -> int:
    """len(seq), or an InputError for what has none (a generator: run_all needs to see every
    rank's tensor before the first launch)."""
    try:
        return len(seq)
    except TypeError:
        raise InputError(f"{name} must be a list or tuple of {ranks} tensors (one per local "
                         f"rank), got a {type(seq).__name__}") from None


def _prepare_ms(Ms, most: int) -> list[int]:
    """prepare()'s `Ms` as a list: ints in [1, `most`] (a call's rows), else InputError (a
    kernel loaded for an M no call can have is never used; an M of 0 or past max_M would be
    refused by every call)."""
    try:
        ms = list(Ms)
    except TypeError:
        raise InputError(f"Ms = {Ms!r} must be a list of row counts (ints), e.g. [1, 16, 128], "
                         f"or None for every dispatch choice") from None
    bad = [m for m in ms if not isinstance(m, int) or isinstance(m, bool) or not 1 <= m <= most]
    if bad:
        raise InputError(f"Ms holds {bad[0]!r}: each M must be an int in [1, {most}] (the rows a "
                         f"call of this op may have)")
    return ms


def _not_cuda(dev: torch.device) -> InputError:
    return InputError(f"this op's device is {dev}: it validates and dispatches, but kernels load "
                      f"and launch on CUDA devices only (pass device='cuda:N', or a group on a "
                      f"CUDA device)")


def _op_device(device) -> torch.device | None:
    """The device of a group-less op: CUDA with its index ('cuda' / None: the current device,
    now where CUDA is available, else None, resolved at first use), or 'cpu' (a stand-in that
    validates and never launches: the CPU tests); any other device is an InputError."""
    if device is None:
        return None
    try:
        dev = torch.device("cuda", device) if isinstance(device, int) else torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise InputError(f"device = {device!r} is not a device ({exc}); pass an int, 'cuda' or "
                         f"'cuda:N'") from None
    if dev.type not in ("cuda", "cpu"):
        raise InputError(f"device = {device!r}: the kernels run on CUDA devices only; pass an "
                         f"int, 'cuda' or 'cuda:N'")
    if dev.type == "cuda" and dev.index is None:
        return torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() else None
    return dev


def _group_device(group) -> torch.device:
    """group.device, which the Group interface says names its index where it is CUDA (the
    inputs' device is compared with it as it is)."""
    dev = group.device
    if not isinstance(dev, torch.device) or (dev.type == "cuda" and dev.index is None):
        raise InputError(f"group.device = {dev!r} must be a torch.device with its index (e.g. "
                         f"cuda:0): the Group interface")
    return dev
