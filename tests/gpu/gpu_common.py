"""Shared helpers of the GPU tests: fresh inputs, fp32 references, the tolerance check."""
from __future__ import annotations

import itertools

import pytest
import torch

requires_gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU")

_seeds = itertools.count(1234)

#: Issue 9's decode row counts every new decode schedule is tested at (up and down).
ISSUE9_MS = (1, 2, 15, 16, 17, 63, 64, 65, 127, 255, 511)


def fresh(shape, device="cuda"):
    """randn * 0.1 in bf16 with a seed never used before in this process."""
    g = torch.Generator(device=device)
    g.manual_seed(next(_seeds))
    return (torch.randn(shape, generator=g, device=device) * 0.1).to(torch.bfloat16)


def rank_inputs(tp, M, N, K):
    return [fresh((M, K)) for _ in range(tp)], [fresh((N, K)) for _ in range(tp)]


def reference_sum(xs, ws) -> torch.Tensor:
    """sum_r x_r @ W_r^T, each product and the sum in fp32."""
    ref = None
    for x, w in zip(xs, ws):
        p = x.float() @ w.float().T
        ref = p if ref is None else ref.add_(p)
    return ref


def rs_slice(ref: torch.Tensor, rank: int, tp: int) -> torch.Tensor:
    """Rank `rank`'s rows of the zero-padded sum: [ceil(M/tp), N]."""
    M, N = ref.shape
    chunk = -(-M // tp)
    out = torch.zeros(chunk, N, device=ref.device)
    lo, hi = rank * chunk, min(M, (rank + 1) * chunk)
    if hi > lo:
        out[: hi - lo] = ref[lo:hi]
    return out


def strided_view(t: torch.Tensor, gap: int, offset: int = 0) -> torch.Tensor:
    """`t` [rows, K] copied into columns [offset, offset + K) of a [rows, K + gap] tensor of NaN,
    returned as that row-strided [rows, K] view: a kernel must read it in place, never the NaN
    around it (offset and gap multiples of 8 keep it 16-byte aligned)."""
    rows, K = t.shape
    wide = torch.full((rows, K + gap), float("nan"), dtype=t.dtype, device=t.device)
    wide[:, offset:offset + K] = t
    return wide[:, offset:offset + K]


def poisoned(shape):
    return torch.full(shape, float("nan"), dtype=torch.bfloat16, device="cuda")


def assert_close(out: torch.Tensor, ref: torch.Tensor, what: str) -> None:
    """Every element finite; rel. Frobenius error < 1e-2; max abs error < 0.05*max|ref| + 0.05.

    Why these bounds: each rank's partial is rounded to bf16 before the f32 reduction and the
    result is rounded to bf16 again (relative step 2^-8 = 0.4%), so a correct kernel lands
    near 0.3% relative error; 1e-2 leaves margin without hiding a missing rank's partial (which
    costs >= 1/tp of the norm). The max-abs bound catches a few wrong rows that the norm
    would average away.
    """
    assert tuple(out.shape) == tuple(ref.shape), f"{what}: shape {tuple(out.shape)} != {tuple(ref.shape)}"
    o = out.float()
    finite = torch.isfinite(o)
    assert bool(finite.all()), f"{what}: {int((~finite).sum())} non-finite elements (unwritten output?)"
    err = o - ref
    ref_norm = float(ref.norm())
    if ref_norm == 0.0:
        assert float(err.abs().max()) == 0.0, f"{what}: expected exact zeros"
        return
    rel = float(err.norm()) / ref_norm
    max_abs = float(err.abs().max())
    bound = 0.05 * float(ref.abs().max()) + 0.05
    assert rel < 1e-2, f"{what}: relative error {rel:.3e} >= 1e-2"
    assert max_abs < bound, f"{what}: max abs error {max_abs:.3e} >= {bound:.3e}"


def assert_special(out: torch.Tensor, ref: torch.Tensor, zero_rows: torch.Tensor, what: str):
    """For inputs with special values (tests/gpu/test_special_values.py, run_correctness.py):
    NaN / +-Inf exactly where `ref` has them, exact zeros in `zero_rows` (a bool per row), the
    rows that are finite in `ref` within assert_close's tolerance."""
    o = out.float()
    assert torch.equal(torch.isnan(o), torch.isnan(ref)), (
        f"{what}: NaN at {int(torch.isnan(o).sum())} elements, the reference at "
        f"{int(torch.isnan(ref).sum())}")
    inf = torch.isinf(ref)
    assert torch.equal(torch.isinf(o), inf) and torch.equal(o[inf], ref[inf]), (
        f"{what}: Inf at {int(torch.isinf(o).sum())} elements, the reference at {int(inf.sum())}")
    assert bool((o[zero_rows] == 0).all()), f"{what}: a padding row is not all zeros"
    finite_rows = torch.isfinite(ref).all(dim=1)
    assert_close(out[finite_rows], ref[finite_rows], what)


def check_outputs(mode, outs, xs, ws, what):
    ref = reference_sum(xs, ws)
    tp = len(xs)
    for r, o in enumerate(outs):
        expect = rs_slice(ref, r, tp) if mode == "rs" else ref
        assert_close(o, expect, f"{what} rank {r}")


def check_none(op, M, N, K, what, guard=False):
    """One mode-none call on fresh inputs into a poisoned output, against x @ W^T in fp32. With
    `guard`, out is the first M rows of a NaN tensor one row longer, whose last row must stay NaN
    (a store past N on out's last row would land there)."""
    x, w = fresh((M, K)), fresh((N, K))
    whole = poisoned((M + 1 if guard else M, N))
    out = op(0, x, w, out=whole[:M])
    torch.cuda.synchronize()
    assert_close(out, x.float() @ w.float().T, f"{what} M={M} {op.config(M)}")
    if guard:
        assert bool(torch.isnan(whole[M]).all()), f"{what} M={M}: a store past out's end"


def check_none_cluster_sweep(op, ms, N, K, choice):
    """check_none (with the guard row) at every M of `ms` forward and backward on one op fixed
    to `choice` = (schedule, bn, cluster size): each launch ran that kernel on a grid of whole
    clusters."""
    schedule, bn, cg = choice
    for M in ms + ms[::-1]:
        check_none(op, M, N, K, f"none {schedule} bt={bn} cg={cg}", guard=True)
        launch = op.last_launch[0]
        assert (launch["schedule"], launch["bn"], launch["cta_group"]) == choice
        assert launch["grid"] % cg == 0


def check_none_graph(op, M, N, K, what, replays=3):
    """One eager mode-none call, then one captured in a CUDA graph and replayed on fresh x copied
    in place, the output poisoned before each replay; every replay must match the reference."""
    x, w = fresh((M, K)), fresh((N, K))
    out = poisoned((M, N))
    op(0, x, w, out=out)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        op(0, x, w, out=out)
    for i in range(replays):
        x.copy_(fresh((M, K)))
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert_close(out, x.float() @ w.float().T, f"{what} graph replay {i}")


def check_graph_replays(op, mode, xs, ws, what, replays=3):
    """Capture one run_all on `xs`/`ws`, then replay it on fresh inputs copied in place, the
    outputs poisoned before each replay; every replay must match the reference."""
    tp, (M, K), N = len(xs), xs[0].shape, ws[0].shape[0]
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outs = op.run_all(xs, ws)
    for i in range(replays):
        new_xs, new_ws = rank_inputs(tp, M, N, K)
        for dst, src in zip(xs + ws, new_xs + new_ws):
            dst.copy_(src)
        for o in outs:
            o.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        op.check_errors()
        check_outputs(mode, outs, new_xs, new_ws, f"{what} graph replay {i}")


def check_first_output_survives(op, mode, xs, ws, what):
    """Two calls in a row (the second on -x): the first call's outputs must not change, and
    both must match the reference."""
    first = op.run_all(xs, ws)
    op.synchronize()
    snapshot = [o.clone() for o in first]
    neg = [-x for x in xs]
    second = op.run_all(neg, ws)
    op.synchronize()
    for r, (f, s) in enumerate(zip(first, snapshot)):
        assert torch.equal(f, s), f"{what}: rank {r}: the first output changed"
        assert second[r].data_ptr() != f.data_ptr()
    check_outputs(mode, snapshot, xs, ws, f"{what} first call")
    check_outputs(mode, second, neg, ws, f"{what} second call on -x")


def run_poisoned(op, tp, M, N, K, guard=None):
    """One run_all on fresh inputs into NaN-poisoned outputs (no sync): (xs, ws, outs). With
    `guard` a list, each out is the first rows of a NaN tensor one row longer, and that row is
    appended to `guard` (assert_guards checks it: a store past the output's end lands there)."""
    xs, ws = rank_inputs(tp, M, N, K)
    shape = op.out_shape(M)
    if guard is None:
        outs = [poisoned(shape) for _ in range(tp)]
    else:
        whole = [poisoned((shape[0] + 1, *shape[1:])) for _ in range(tp)]
        outs = [w[:shape[0]] for w in whole]
        guard += [w[shape[0]] for w in whole]
    return xs, ws, op.run_all(xs, ws, out=outs)


def assert_guards(guard, what: str) -> None:
    """Every guard row run_poisoned(..., guard=) kept is still all NaN."""
    for i, row in enumerate(guard):
        assert bool(torch.isnan(row).all()), f"{what}: a store landed past the output's end ({i})"
