"""`SymmMemGroup`: the Group interface over real GPUs, one process per GPU, torch symmetric memory.

Each process drives one rank (`local_ranks == (rank,)`) on its current CUDA device and launches
on the caller's current stream (`stream(rank) is None`). Workspace, flag area and AR buffer come
from `torch.distributed._symmetric_memory.empty` + `rendezvous`; the peer tables are built from
the handle's `buffer_ptrs`. The multicast pointer is passed on only when transport.py allows it
(device support, non-zero pointer, no disable switch); on our machines it is always 0 and the
unicast variants run.

When peers cannot map each other's memory, construction raises SymmetricMemoryUnavailable with
the reason; `fallback.make_fused_or_fallback` turns that into a logged `None` so the caller uses
torch.mm + NCCL (the seed's graceful degradation).
"""
from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import torch

from codegen import contract

from .errors import InputError
from .group import Group, SymmetricBuffer, _pinned_device_ptr, check_group_shape
from .push_table import push_table
from .symm_env import enforce_no_multicast
from .transport import multicast_unavailable_reason

_ITEMSIZE = {"bfloat16": 2, "int32": 4, "int64": 8}


class SymmetricMemoryUnavailable(RuntimeError):
    """Peers cannot share memory here (the message says why): use torch.mm + NCCL instead."""


@dataclass(frozen=True)
class BufferSpec:
    """One buffer a SymmMemGroup allocates: symmetric ones go through rendezvous."""

    name: str
    shape: tuple[int, ...]
    dtype: str  # 'bfloat16' | 'int32' | 'int64'
    symmetric: bool

    @property
    def nbytes(self) -> int:
        n = _ITEMSIZE[self.dtype]
        for d in self.shape:
            n *= d
        return n


def buffer_specs(max_M: int, N: int, tp: int, mode: str) -> list[BufferSpec]:
    """The buffers of one rank (KERNEL-CONTRACT.md "Shapes" / "Flag area"), pure.

    workspace [2, workspace_rows, N] bf16, flags int64[flag_words] (sized for the smallest BN so every
    BN fits), AR buffer [2, rows_pad, N] bf16 (mode 'ar' only), the decode landing buffer
    [2, tp, land_rows, N] bf16, error record i32[8] (pinned host memory, not symmetric).
    """
    check_group_shape(max_M, N, tp, mode)
    rp = contract.rows_pad(max_M)
    specs = [BufferSpec("workspace", (2, contract.workspace_rows(rp, tp), N), "bfloat16", True),
             BufferSpec("flags", (contract.flag_words(max_M, N, tp),), "int64", True)]
    if mode == "ar":
        specs.append(BufferSpec("ar", (2, rp, N), "bfloat16", True))
    specs.append(BufferSpec("landing", (2, tp, contract.land_rows(max_M), N), "bfloat16", True))
    specs.append(BufferSpec("error_record", (contract.ERROR_RECORD_WORDS,), "int32", False))
    return specs


def peer_addresses(buffer_ptrs: Sequence[int], rank: int, local_ptr: int, nbytes: int,
                   buffer_size: int | None = None) -> list[int]:
    """Every rank's address of the tensor at `local_ptr` (u64 values, index = rank).

    torch's `buffer_ptrs` are the bases of each rank's allocation block; a tensor from the
    symmetric memory pool may sit at an offset inside it, the same offset on every rank.
    """
    base = int(buffer_ptrs[rank])
    off = int(local_ptr) - base
    if off < 0 or (buffer_size is not None and off + nbytes > int(buffer_size)):
        raise SymmetricMemoryUnavailable(
            f"tensor at {local_ptr:#x} ({nbytes} bytes) is not inside this rank's symmetric block "
            f"[{base:#x}, +{buffer_size}) reported by rendezvous")
    return [int(p) + off for p in buffer_ptrs]


def _as_int64(addr: int) -> int:
    """u64 bits as an int64 value (for a torch.int64 table)."""
    return addr - (1 << 64) if addr >= (1 << 63) else addr


def choose_multicast_ptr(mc_ptr: int | None, device_index: int | None,
                         environ: Mapping[str, str] | None = None) -> tuple[int, str | None]:
    """(pointer to use, reason it is 0): transport.py's rule, never creating anything.

    The pointer is kept only when it is non-zero, no disable switch is set and the device
    reports multicast support; otherwise (0, why).
    """
    ptr = int(mc_ptr or 0)
    reason = multicast_unavailable_reason([ptr], device_index, environ)
    return (0, reason) if reason else (ptr, None)


def _peer_access_reason(infos: Sequence[tuple[str, str]], rank: int, local_index: Mapping[str, int],
                        can_access: Callable[[int, int], bool]) -> str | None:
    """Why this rank cannot map some peer, or None.

    `infos[r] = (hostname, device id)` with a device id that is the same in every process (the
    GPU's UUID), since launchers may give each process a different CUDA_VISIBLE_DEVICES;
    `local_index` maps the ids this process can see to its device indices. Peers on other
    hosts or on GPUs this process cannot see are left to rendezvous (which reports its failure).
    """
    host, dev = infos[rank]
    for r, (h, d) in enumerate(infos):
        if r == rank or h != host:
            continue
        if d == dev:
            return f"ranks {rank} and {r} share GPU {dev} on {host} (one GPU per rank needed)"
        if d in local_index and not can_access(local_index[dev], local_index[d]):
            return (f"GPU {local_index[dev]} cannot access peer GPU {local_index[d]} on {host} "
                    f"(no P2P / NVLink)")
    return None


def _config_mismatch(configs: Sequence[Mapping]) -> str | None:
    """Why the ranks' SymmMemGroup arguments differ, or None. Each rank sizes its buffers and
    lays out its flags by them, and peers address each other's buffers by the same layout:
    unequal ones read past a peer's buffer or wait on flags it never sets."""
    first = configs[0]
    keys = [k for k in first if any(c[k] != first[k] for c in configs)]
    if not keys:
        return None
    ranks = "; ".join(f"rank {r}: " + ", ".join(f"{k}={c[k]!r}" for k in keys)
                      for r, c in enumerate(configs))
    return (f"SymmMemGroup is collective: every rank must pass the same {', '.join(keys)}, got "
            f"{ranks}")


def _device_id(index: int) -> str:
    """A GPU id that is the same in every process (UUID), whatever CUDA_VISIBLE_DEVICES says."""
    props = torch.cuda.get_device_properties(index)
    uuid = getattr(props, "uuid", None)
    return str(uuid) if uuid is not None else f"{getattr(props, 'pci_bus_id', '')}/{index}"


def _rendezvous(symm, t: torch.Tensor, group_name: str):
    """symm.rendezvous; torch releases that still need the (later deprecated) per-group
    registration get it once, then the rendezvous is retried. Any other error propagates."""
    try:
        return symm.rendezvous(t, group_name)
    except Exception as exc:
        msg = str(exc)
        enable = getattr(symm, "enable_symm_mem_for_group", None)
        if enable is None or not ("enable_symm_mem_for_group" in msg or "not registered" in msg):
            raise
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        enable(group_name)
    return symm.rendezvous(t, group_name)


class SymmMemGroup(Group):
    """This process's rank of a real TP group; buffers in torch symmetric memory.

    Args:
        max_M, N, mode: as VirtualGroup (mode 'rs' | 'ar').
        group: torch.distributed process group (default: WORLD). torch.distributed must be
            initialised (NCCL) and the current CUDA device set to this rank's GPU.
        sm_margin: SMs left free for other work; `sm_budget = SMs - sm_margin`.
        allow_multicast: never on the project's machines. Without it the constructor applies
            and checks symm_env's switches before any rendezvous (torch would otherwise create
            a multicast object there on NVSwitch systems).
        backend: torch symmetric-memory backend to select ('CUDA', 'NVSHMEM', 'NCCL'), or None
            for torch's default.

    Collective: every rank of `group` must construct it, with the same arguments.
    Raises SymmetricMemoryUnavailable (on every rank, same reason) when peers cannot map
    each other; MulticastSafetyError when the environment enables multicast.
    """

    def __init__(self, max_M: int, N: int, mode: str, group=None, *, sm_margin: int = 0,
                 allow_multicast: bool = False, backend: str | None = None):
        import torch.distributed as dist

        if not isinstance(sm_margin, int) or isinstance(sm_margin, bool) or sm_margin < 0:
            # (a float margin would make sm_budget, the persistent grid, a float)
            raise ValueError(f"sm_margin={sm_margin!r}: must be an int >= 0 (SMs left free)")
        enforce_no_multicast(allow_multicast)
        if not torch.cuda.is_available():
            raise SymmetricMemoryUnavailable("no CUDA device in this process")
        if not (dist.is_available() and dist.is_initialized()):
            raise RuntimeError("SymmMemGroup needs torch.distributed initialised (NCCL, one "
                               "process per GPU, e.g. under torchrun) and the device set")
        try:
            import torch.distributed._symmetric_memory as symm
        except ImportError as exc:
            raise SymmetricMemoryUnavailable(f"torch has no symmetric memory ({exc})") from exc
        self.process_group = group if group is not None else dist.group.WORLD
        self.tp = dist.get_world_size(self.process_group)
        self.rank = dist.get_rank(self.process_group)
        self._specs = {s.name: s for s in buffer_specs(max_M, N, self.tp, mode)}
        self.device = torch.device("cuda", torch.cuda.current_device())
        self.mode, self.max_M, self.N = mode, max_M, N
        self._launch_lock = threading.Lock()  # group.launch_lock(self)
        sms = torch.cuda.get_device_properties(self.device).multi_processor_count
        if not 0 <= sm_margin < sms:
            raise ValueError(f"sm_margin={sm_margin}: must be in [0, {sms})")
        self.sm_budget = sms - sm_margin
        from .driver import ensure_context

        with torch.cuda.device(self.device):
            ensure_context(self.device.index)  # transport's device query needs cuInit
            self._check_peers_collectively(dist)
            if backend is not None and self._query_backend(symm) != backend:
                self._select_backend(symm, backend)  # torch allows it only before any allocation
            self.symm_backend = self._query_backend(symm)
            self.multicast_note: dict[str, str | None] = {}
            self._handles = {}
            self._bufs: dict[str, SymmetricBuffer] = {}
            for spec in self._specs.values():
                if spec.symmetric:
                    self._bufs[spec.name] = self._allocate(symm, spec)
            for b in self._bufs.values():
                b.local.zero_()  # flags must start at 0; ws / AR only for tidy debugging
            self._bufs["landing"].local.fill_(-0.0)  # armed with the Lamport sentinel
            ws_ptrs = [p & (1 << 64) - 1 for p in self._bufs["workspace"].peer_ptrs.tolist()]
            self._push = push_table(ws_ptrs, self.rank, contract.rows_pad(max_M), N, self.device)
            self._err = torch.zeros(contract.ERROR_RECORD_WORDS, dtype=torch.int32, pin_memory=True)
            self._err_dev = _pinned_device_ptr(self._err, self.device.index)
            torch.cuda.synchronize(self.device)
        self.barrier()  # nobody's kernel may read a peer's flags before the peer zeroed them

    # ---- construction helpers --------------------------------------------------------------
    def _check_peers_collectively(self, dist) -> None:
        """Exchange (host, device, arguments), check the arguments agree (else InputError) and
        P2P, and agree: every rank raises the same error."""
        local_index = {_device_id(i): i for i in range(torch.cuda.device_count())}
        infos: list = [None] * self.tp
        config = {"max_M": self.max_M, "N": self.N, "mode": self.mode}
        dist.all_gather_object(infos, (socket.gethostname(), _device_id(self.device.index), config),
                               group=self.process_group)
        why = _config_mismatch([info[2] for info in infos])
        if why:
            raise InputError(why)
        reason = _peer_access_reason([info[:2] for info in infos], self.rank, local_index,
                                     torch.cuda.can_device_access_peer)
        reasons: list = [None] * self.tp
        dist.all_gather_object(reasons, reason, group=self.process_group)
        bad = [f"rank {r}: {why}" for r, why in enumerate(reasons) if why]
        if bad:
            raise SymmetricMemoryUnavailable("peers cannot map each other: " + "; ".join(bad))

    @staticmethod
    def _select_backend(symm, backend: str) -> None:
        try:
            symm.set_backend(backend)
        except Exception as exc:  # already chosen by an earlier allocation, or unknown name
            raise SymmetricMemoryUnavailable(f"cannot select symmetric-memory backend "
                                             f"{backend!r}: {exc}") from exc

    def _query_backend(self, symm) -> str | None:
        try:
            return symm.get_backend(self.device)
        except Exception:  # only informational (older torch has no get_backend)
            return None

    def _allocate(self, symm, spec: BufferSpec) -> SymmetricBuffer:
        dtype = getattr(torch, spec.dtype)
        try:
            t = symm.empty(spec.shape, dtype=dtype, device=self.device)
            hdl = _rendezvous(symm, t, self.process_group.group_name)
        except Exception as exc:  # torch raises RuntimeError / DistBackendError on import/map
            raise SymmetricMemoryUnavailable(
                f"torch symmetric memory failed for the {spec.name} buffer "
                f"({spec.nbytes} bytes, rank {self.rank} of {self.tp}): {exc}") from exc
        ptrs = [int(p) for p in hdl.buffer_ptrs]
        if len(ptrs) != self.tp:
            raise SymmetricMemoryUnavailable(f"rendezvous gave {len(ptrs)} buffer pointers for "
                                             f"{self.tp} ranks")
        size = getattr(hdl, "buffer_size", None)
        addrs = peer_addresses(ptrs, self.rank, t.data_ptr(), spec.nbytes, size)
        table = torch.tensor([_as_int64(a) for a in addrs], dtype=torch.int64, device=self.device)
        # multicast_ptr is only read here (already offset to this tensor by torch); nothing is
        # created by reading it. transport's rule decides whether the kernel may see it.
        mc, why = choose_multicast_ptr(getattr(hdl, "multicast_ptr", 0), self.device.index)
        self.multicast_note[spec.name] = why
        self._handles[spec.name] = hdl
        return SymmetricBuffer(t, table, mc)

    # ---- Group interface --------------------------------------------------------------------
    @property
    def local_ranks(self) -> tuple[int, ...]:
        return (self.rank,)

    def _own(self, rank: int) -> None:
        if rank != self.rank:
            raise ValueError(f"this process drives rank {self.rank} only, asked for rank {rank}")

    def workspace(self, rank: int) -> SymmetricBuffer:
        self._own(rank)
        return self._bufs["workspace"]

    def flags(self, rank: int) -> SymmetricBuffer:
        self._own(rank)
        return self._bufs["flags"]

    def ar_buffer(self, rank: int) -> SymmetricBuffer | None:
        self._own(rank)
        return self._bufs.get("ar")

    def landing(self, rank: int) -> SymmetricBuffer:
        self._own(rank)
        return self._bufs["landing"]

    def push_tmaps(self, rank: int) -> torch.Tensor:
        self._own(rank)
        return self._push

    def error_record(self, rank: int) -> torch.Tensor:
        self._own(rank)
        return self._err

    def error_record_device_ptr(self, rank: int) -> int:
        self._own(rank)
        return self._err_dev

    def stream(self, rank: int) -> None:
        self._own(rank)
        return None  # the caller's current stream

    # ---- collective helpers -----------------------------------------------------------------
    def barrier(self) -> None:
        """Device-complete barrier: this device idle, then an NCCL all-reduce, then idle again.

        Unlike a host-only barrier it guarantees every rank's earlier device work (e.g. the
        zeroing of its flags) has finished before anyone proceeds.
        """
        import torch.distributed as dist

        with torch.cuda.device(self.device):
            torch.cuda.synchronize(self.device)
            t = torch.zeros(1, dtype=torch.int32, device=self.device)
            dist.all_reduce(t, group=self.process_group)
            torch.cuda.synchronize(self.device)

    def reset_state(self) -> None:
        """Recovery after a time-out (collective): barrier, zero flags and error record, barrier.

        The first barrier waits until every rank's timed-out kernel has exited; the second
        keeps any rank from launching while a peer still has stale flags (a stale epoch could
        satisfy a new wait). Not for normal operation.
        """
        self.barrier()
        with torch.cuda.device(self.device):
            self._bufs["flags"].local.zero_()
            self._bufs["landing"].local.fill_(-0.0)
        self._err.zero_()
        self.barrier()
