"""A cached cubin loaded into torch's context and its launch configuration (call_plan.py launches)."""
from __future__ import annotations

import threading

from codegen import contract, env
from codegen.spec import SpecError, Variant

from .cache_index import CacheEntry
from .driver import call, capture_relaxed, cuda, ensure_context
from .params import ParamSpec, parse_abi


class LoadedKernel:
    """One kernel of one cache entry, loaded on one device.

    Get it with :func:`load_kernel` (one load per process, device and cubin); launch it with
    a CallPlan (call_plan.py), which packs parameters by name from the entry's ABI.
    """

    def __init__(self, entry: CacheEntry, device_index: int):
        self.entry = entry
        self.device_index = device_index
        launch = entry.meta["launch"]
        self.block = tuple(int(v) for v in launch["block"]) + (1,) * (3 - len(launch["block"]))
        cluster = launch.get("cluster", [1, 1, 1])
        self.cluster = tuple(int(v) for v in cluster) + (1,) * (3 - len(cluster))
        self.dynamic_smem = int(launch.get("dynamic_smem", 0))
        # programmatic dependent launch (CODEGEN_PDL, off by default): only for kernels built to
        # wait for the previous grid before touching global memory (launch "pdl", the templates'
        # await_previous_grid); an older cache entry without it always launches plainly
        self.pdl = launch.get("pdl") is True and env.load().pdl
        self.specs: list[ParamSpec] = parse_abi(entry.meta["abi"]["params"])
        self.param_names = frozenset(s.name for s in self.specs)
        self.variant = _entry_variant(entry)
        self._function = None
        self._max_clusters = None

    @property
    def arch(self) -> str:
        return self.variant.arch

    @property
    def mode(self) -> str:
        return self.variant.mode

    def contract_mismatch(self, N: int | None = None) -> str | None:
        """Why this entry's parameter list is not the contract's (built by an older codegen),
        or None. The runtime packs exactly the contract's list, so such an entry is unusable.
        Also whether a tile or splitk kernel the contract lets reach past N
        (contract.variant_ragged_n) was built to (older entries stop at floor(N / width) tiles):
        given the op's N, only where the width does not divide N; N unknown (codegen
        check-deploy), for any N."""
        want = [name for name, _ in contract.kernel_params(self.arch, self.mode,
                                                           self.variant.schedule)]
        have = [s.name for s in self.specs]
        if have != want:
            return f"its kernel parameters {have} are not the contract's {want}"
        v = self.variant
        if v.schedule == "swapab" and contract.swapab_ragged_n(v.cta_group, v.arch):
            # (entries from before the launch key: ragged exactly where W rows divide no MIN_BN)
            built = self.entry.meta["launch"].get(
                "ragged_n", contract.MIN_BN % contract.swapab_w_rows(v.cta_group) != 0)
            if built is not True:
                return (f"its last {contract.swapab_w_rows(v.cta_group)}-row W tile cannot "
                        f"reach past N, which the contract's runtime assumes")
        # splitk (mode none, sixteenth session) and the tile schedule: entries from before their
        # launch key stop at floor(N / width) tiles, so they serve only an N the width divides
        stops = {"splitk": (contract.SWAPAB_BM, "64-row W tiles", "an N that 64 does not divide"),
                 "tile": (v.bn, f"tiles of {v.bn} columns", "an N it does not divide")}
        if (v.schedule in stops
                and contract.variant_ragged_n(v.schedule, v.cta_group, v.arch, v.mode)
                and self.entry.meta["launch"].get("ragged_n") is not True):
            width, tiles, any_n = stops[v.schedule]
            if N is None or N % width:
                return (f"its {tiles} stop at a multiple of {width}, so it cannot serve "
                        + (any_n if N is None else f"N = {N}"))
        return None

    def _load(self):
        import torch

        with torch.cuda.device(self.device_index):
            self._load_current()

    def _load_current(self):
        ensure_context(self.device_index)
        # (a first call may come inside a CUDA-graph capture: the load is not part of the graph)
        with capture_relaxed():
            self._load_relaxed()

    def _load_relaxed(self):
        lib = call("cuLibraryLoadData", self.entry.cubin, None, None, 0, None, None, 0)
        kern = call("cuLibraryGetKernel", lib, self.entry.symbol.encode())
        func = call("cuKernelGetFunction", kern)
        attr = cuda.CUfunction_attribute
        # Above 48 KiB of dynamic shared memory a kernel must opt in, per function.
        call("cuFuncSetAttribute", func,
             attr.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, self.dynamic_smem)
        if self.cluster_size > 1:
            call("cuFuncSetAttribute", func,
                 attr.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)
        self._library = lib  # keep the library alive as long as the function
        self._function = func

    @property
    def function(self):
        """The CUfunction in torch's context; loads the cubin on first use.

        Ops touch it before their first launch; where that launch is inside a CUDA-graph
        capture, the load runs with the capture mode relaxed (driver.capture_relaxed).
        """
        if self._function is None:
            self._load()
        return self._function

    @property
    def cluster_size(self) -> int:
        return self.cluster[0] * self.cluster[1] * self.cluster[2]

    @property
    def max_active_clusters(self) -> int | None:
        """How many clusters of this kernel the device holds at once (the driver's
        cuOccupancyMaxActiveClusters at its block, shared memory and cluster size), once per
        kernel; None for a kernel without a cluster. A cluster sits in one GPC, so it can be
        below SMs / cluster size: one H200 holds 30 clusters of 4 of the splitk kernels (120
        CTAs), not 33, and a persistent grid of 33 ran its last three after the first ones
        (twice the time)."""
        if self.cluster_size <= 1:
            return None
        if self._max_clusters is None:
            cfg = self.launch_config(self.cluster_size, 0)
            self._max_clusters = max(1, int(call("cuOccupancyMaxActiveClusters", self.function,
                                                 cfg)))
        return self._max_clusters

    def launch_config(self, grid: int, stream_handle: int):
        """The CUlaunchConfig of a 1-D grid on `stream_handle` (a cudaStream_t as int)."""
        cfg = cuda.CUlaunchConfig()
        cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = int(grid), 1, 1
        cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = self.block
        cfg.sharedMemBytes = self.dynamic_smem
        cfg.hStream = cuda.CUstream(int(stream_handle))
        attrs = []
        if self.cluster_size > 1:
            a = cuda.CUlaunchAttribute()
            a.id = cuda.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z = self.cluster
            attrs.append(a)
        if self.pdl:
            a = cuda.CUlaunchAttribute()
            a.id = cuda.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
            a.value.programmaticStreamSerializationAllowed = 1
            attrs.append(a)
        cfg.attrs = attrs
        cfg.numAttrs = len(attrs)
        return cfg


def _entry_variant(entry: CacheEntry) -> Variant:
    """The entry's Variant: meta.json `variant` (a dict), else its canonical name."""
    v = entry.meta.get("variant")
    try:
        return Variant.from_dict(v) if isinstance(v, dict) else Variant.parse(entry.variant)
    except (SpecError, TypeError) as exc:
        raise ValueError(f"cache entry {entry.dir} names no valid variant: {exc}") from None


_loaded: dict[tuple, LoadedKernel] = {}
_lock = threading.Lock()


def load_kernel(entry: CacheEntry, device_index: int) -> LoadedKernel:
    """The process-wide LoadedKernel of `entry` on `device_index` (loaded on first launch)."""
    key = (device_index, entry.cubin_sha256, entry.symbol)
    with _lock:
        k = _loaded.get(key)
        if k is None:
            k = _loaded[key] = LoadedKernel(entry, device_index)
        return k
