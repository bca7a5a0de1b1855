"""The unfused baselines of tools/bench_multi_gpu.py: torch.mm, then a collective (imported, never run).

AR:
  nccl           torch.mm into a bf16 buffer, then dist.all_reduce
  symm_two_shot  torch.mm into a torch symmetric-memory buffer, then
                 torch.ops.symm_mem.two_shot_all_reduce_(buf, "sum", group_name)
  symm_one_shot  the same, then torch.ops.symm_mem.one_shot_all_reduce(buf, "sum", group_name)
RS (M padded with zero rows to a multiple of tp):
  nccl           torch.mm, then dist.reduce_scatter_tensor
  symm_rs        torch.mm into a symmetric buffer, then torch.ops.symm_mem.reduce_scatter_out on
                 its flat 1-D view (rank r's chunk of the flat rows is its row slice); the call
                 is fitted to the op's schema, read at run time

A baseline that cannot be set up, fails, or gives a wrong sum is recorded with the reason and
left out of the best; it never ends the run. The symmetric buffer is one allocation per mode,
rendezvoused once (torch's backend and multicast switches as the SymmMemGroup's: no multicast).
"""
from __future__ import annotations

import math

from graph_timing import weight_of  # tools/ is on the path of every script that imports this

BASELINES = {"ar": ("nccl", "symm_two_shot", "symm_one_shot"), "rs": ("nccl", "symm_rs")}
#: A baseline whose result differs from the reference by more than this is wrong, not fast.
MAX_RELERR = 0.05


def best_baseline(times: dict) -> tuple[str | None, float | None]:
    """(name, us) of the fastest baseline with a finite time; (None, None) if none has one."""
    ok = {k: v for k, v in times.items() if isinstance(v, (int, float)) and math.isfinite(v)}
    if not ok:
        return None, None
    name = min(ok, key=ok.get)
    return name, ok[name]


def fit_schema(schema, values: dict) -> tuple[list, dict]:
    """(args, kwargs) calling an op with `schema` (``op.default._schema``) from `values` by
    argument name. An argument `values` lacks keeps its default (later ones then go by keyword);
    one without a default is a ValueError naming it. Values the schema does not name are unused."""
    args, kwargs, by_name = [], {}, False
    for a in schema.arguments:
        if a.name not in values:
            if not a.has_default_value():
                raise ValueError(f"{schema.name} needs argument {a.name!r} ({a.type}), which "
                                 f"this benchmark does not know how to fill")
            by_name = True
            continue
        if a.kwarg_only or by_name:
            kwargs[a.name] = values[a.name]
        else:
            args.append(values[a.name])
    return args, kwargs


def relerr(out, ref) -> float:
    """||out - ref|| / ||ref|| in f32."""
    return float((out.float() - ref.float()).norm() / ref.float().norm().clamp_min(1e-30))


class Unfused:
    """One mode's baselines on this rank: the buffers, and per (x, w, M) the calls to time
    (`w`: the weight, or a function returning each call's copy of it: graph_timing.weight_of).

    Collective (allocates and rendezvouses a symmetric buffer): every rank constructs it.
    """

    def __init__(self, torch, dist, device, mode: str, max_M: int, N: int, names=None):
        self.torch, self.dist, self.device, self.mode, self.N = torch, dist, device, mode, N
        self.tp = dist.get_world_size()
        self.names = tuple(n for n in BASELINES[mode] if names is None or n in names)
        self.group_name = dist.group.WORLD.group_name
        self.flat, self.symm_error = None, None
        if not any(n.startswith("symm") for n in self.names):
            return
        try:
            import torch.distributed._symmetric_memory as symm

            from codegen.runtime.symm_group import _rendezvous

            rows = -(-max_M // self.tp) * self.tp
            self.flat = symm.empty(rows * N, dtype=torch.bfloat16, device=device)
            _rendezvous(symm, self.flat, self.group_name)
        except Exception as exc:  # noqa: BLE001 - the NCCL baseline still runs
            self.flat, self.symm_error = None, f"symmetric buffer: {type(exc).__name__}: {exc}"

    def calls(self, x, w, M: int) -> tuple[dict, dict]:
        """({name: call}, {name: why it cannot run}) at M; each call returns its result tensor."""
        rows = -(-M // self.tp) * self.tp if self.mode == "rs" else M
        calls, skipped = {}, {}
        for name in self.names:
            try:
                if name.startswith("symm") and self.flat is None:
                    raise RuntimeError(self.symm_error)
                calls[name] = getattr(self, f"_{self.mode}_{name}")(x, w, M, rows)
            except Exception as exc:  # noqa: BLE001 - recorded, the others still run
                skipped[name] = f"{type(exc).__name__}: {exc}"
        return calls, skipped

    def _symm_view(self, rows: int):
        flat = self.flat[: rows * self.N]
        return flat, flat.view(rows, self.N)

    def _new(self, rows: int, zero: bool = False):
        t = self.torch.zeros if zero else self.torch.empty
        return t(rows, self.N, dtype=self.torch.bfloat16, device=self.device)

    def _ar_nccl(self, x, w, M, rows):
        part = self._new(rows)

        def call():
            self.torch.mm(x, weight_of(w).t(), out=part)
            self.dist.all_reduce(part)
            return part
        return call

    def _ar_symm(self, x, w, rows, op_name: str):
        """torch.mm into the symmetric buffer, then torch.ops.symm_mem.<op_name>(buf, "sum", group)."""
        _, buf = self._symm_view(rows)
        op = getattr(self.torch.ops.symm_mem, op_name)

        def call():
            self.torch.mm(x, weight_of(w).t(), out=buf)
            return op(buf, "sum", self.group_name)  # two-shot: in place (returns buf)
        return call

    def _ar_symm_two_shot(self, x, w, M, rows):
        return self._ar_symm(x, w, rows, "two_shot_all_reduce_")

    def _ar_symm_one_shot(self, x, w, M, rows):
        return self._ar_symm(x, w, rows, "one_shot_all_reduce")

    def _rs_nccl(self, x, w, M, rows):
        part, out = self._new(rows, zero=True), self._new(rows // self.tp)  # pad rows stay 0

        def call():
            self.torch.mm(x, weight_of(w).t(), out=part[:M])
            self.dist.reduce_scatter_tensor(out, part)
            return out
        return call

    def _rs_symm_rs(self, x, w, M, rows):
        flat, buf = self._symm_view(rows)
        buf[M:].zero_()
        out = self._new(rows // self.tp)
        op = self.torch.ops.symm_mem.reduce_scatter_out.default
        args, kwargs = fit_schema(op._schema, {"input": flat, "group_name": self.group_name,
                                               "split_last_dim": False, "output": out.view(-1),
                                               "reduce_op": "sum"})

        def call():
            self.torch.mm(x, weight_of(w).t(), out=buf[:M])
            op(*args, **kwargs)
            return out
        return call
