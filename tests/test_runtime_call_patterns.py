"""Call patterns of GemmRsAr checked without a GPU: prepare() loading every kernel a later call
may use, and copies / pickles of an op."""
import pytest
import torch

from codegen.runtime import dispatch
from codegen.runtime.op import GemmRsAr
from codegen.spec import Variant

from test_runtime_op_params import _kernel
from test_runtime_validate import CpuGroup

N, K = 1024, 256


@pytest.mark.parametrize("mode, N_, K_, max_M", [
    ("none", 8, 256, 4096), ("none", 1000, 8192, 4096), ("none", 2880, 4096, 8192),
    ("none", 4096, 1024, 4096), ("none", 7168, 16384, 4096), ("rs", 7168, 4096, 4096),
    ("ar", 2880, 1024, 4096), ("rs", 704, 8192, 2048), ("none", 7168, 2360, 4096)])
def test_prepare_loads_every_kernel_a_call_may_use(mode, N_, K_, max_M):
    """prepare() with no Ms samples M (token-tile and row-tile steps) but loads the variant of
    every M in 1..max_M (the dispatcher's choice at each), as it promises: a later call never
    loads a cubin. Mode none with the H200's cluster slots, so the splitk / splitkw rules are
    weighed too, with the rows of x and W on 128-byte lines and not (the call's row strides
    pick: a ragged K in padded buffers, an aligned K as a column slice)."""
    if mode == "none":
        op = GemmRsAr(max_M, N_, K_, "none", arch="sm_90a", device="cpu", sm_budget=132)
        op._slots = {"splitk": {2: 66, 4: 30}, "splitkw": {2: 66, 4: 30}}
    else:
        op = GemmRsAr(max_M, N_, K_, mode, CpuGroup(tp=2, max_M=max_M, N=N_, mode=mode),
                      arch="sm_90a")
    loaded = set()
    op.kernel = lambda v: loaded.add(v.name)
    op.prepare()
    every = {op.variant(M, aligned).name for M in range(1, op.max_served_m + 1)
             for aligned in ((None, True, False) if mode == "none" else (None,))}
    assert every <= loaded, sorted(every - loaded)


def _lines(rows: int, ld: int, cols: int, offset: int = 0) -> torch.Tensor:
    """A [rows, cols] bf16 view of rows `ld` elements apart, its first element `offset`
    elements past a 128-byte line."""
    buf = torch.zeros(rows * ld + 128, dtype=torch.bfloat16)
    start = (-buf.data_ptr() % 128) // 2 + offset
    return buf[start:start + rows * ld].view(rows, ld)[:, :cols]


@pytest.mark.parametrize("pad", [0, 8])
def test_a_plan_follows_the_calls_row_strides(monkeypatch, pad):
    """Mode none at a ragged K (7168 x 2360, M 160): x and W whose rows start off the 128-byte
    lines take the tile schedule, the same matrices in buffers of 128-byte rows the decode
    kernel, and so does x off the lines with W in such a buffer (dispatch.WEIGHT_ON_LINES_RULE);
    each its own plan, so alternating them never launches one with the other's kernel. A single
    row of x counts by its address alone; a view starting off a line is off the lines whatever
    its stride."""
    import codegen.runtime.launch_plan as plan_mod

    from test_runtime_op_params import _kernel

    monkeypatch.setattr(plan_mod, "encode_bf16_2d", lambda *a: b"\0" * 128)
    K_ = 2360 + pad
    op = GemmRsAr(512, 7168, K_, "none", arch="sm_90a", device="cpu", sm_budget=132)
    monkeypatch.setattr(op, "kernel", _kernel)
    x, w = _lines(160, K_, K_), _lines(7168, K_, K_)            # contiguous
    xp, wp = _lines(160, 2368, K_), _lines(7168, 2368, K_)      # 128-byte rows
    out = torch.zeros(160, 7168, dtype=torch.bfloat16)
    contiguous = op._plan(0, x, w, out, 160).info
    padded = op._plan(0, xp, wp, out, 160).info
    assert padded["schedule"] == "swapab" and padded["bn"] == 80
    if pad:   # K 2368: contiguous rows are 128-byte lines too
        assert contiguous == padded
    else:
        assert (contiguous["schedule"], contiguous["bn"], contiguous["cta_group"]) == ("tile", 128, 2)
        x_off = op._plan(0, x, wp, out, 160)                     # only x's rows off the lines
        assert x_off.info == padded and x_off is not op._plan(0, xp, wp, out, 160)
        monkeypatch.setattr(dispatch, "WEIGHT_ON_LINES_RULE", False)
        op._plans.clear()
        assert op._plan(0, x, wp, out, 160).info == contiguous   # (as before the rule)
        monkeypatch.setattr(dispatch, "WEIGHT_ON_LINES_RULE", True)
    assert op._plan(0, x, w, out, 160) is op._plan(0, x, w, out, 160)
    # a view whose rows are 128-byte apart but start 16 bytes past a line: off the lines
    assert op._plan(0, xp, _lines(7168, 2368, K_, offset=8), out, 160).info["schedule"] == "tile"
    # one row of x: its address decides, not K (N 16904 M 1: the rule differs with the rows)
    op = GemmRsAr(512, 16904, 2360, "none", arch="sm_90a", device="cpu", sm_budget=132)
    monkeypatch.setattr(op, "kernel", _kernel)
    w1, out1 = _lines(16904, 2368, 2360), torch.zeros(1, 16904, dtype=torch.bfloat16)
    assert op.choice(1, True) != op.choice(1, False)
    got = op._plan(0, _lines(1, 2360, 2360), w1, out1, 1).info
    assert (got["schedule"], got["bn"], got["cta_group"]) == op.choice(1, True)


# ---- copies and pickles ----------------------------------------------------------------------
def _op_with_a_plan(monkeypatch, tmp_path):
    """A mode-none op that has built a launch plan (packed parameters, ctypes buffers)."""
    import codegen.runtime.launch_plan as plan_mod

    monkeypatch.setattr(plan_mod, "encode_bf16_2d", lambda *a: b"\0" * 128)
    op = GemmRsAr(300, N, K, "none", arch="sm_90a", device="cpu", sm_budget=132, bn=128,
                  cta_group=1, schedule="tile", timeout_ms=1234, cache_dir=tmp_path,
                  manifest="deploy.json")
    v = Variant("sm_90a", "none", None, 128, 1, None)
    monkeypatch.setattr(op, "kernel", lambda var: _kernel(v))
    x, w = torch.zeros(5, K, dtype=torch.bfloat16), torch.zeros(N, K, dtype=torch.bfloat16)
    op._plan(0, x, w, torch.zeros(5, N, dtype=torch.bfloat16), 5)
    assert op._plans
    return op


def _same_arguments(a, b):
    for name in ("max_M", "N", "K", "mode", "fixed_bn", "fixed_cta_group", "fixed_schedule",
                 "timeout_ns", "cache_dir", "manifest", "device", "_sm_budget", "_arch"):
        assert getattr(a, name) == getattr(b, name), name


def test_copies_of_an_op_are_new_ops_of_the_same_arguments(monkeypatch, tmp_path):
    """Before: copy.deepcopy / pickle of an op that had run raised 'ctypes objects containing
    pointers cannot be pickled' (its packed launch plans), and of any rs/ar op 'cannot pickle
    _thread.lock' (the group); copy.copy shared the plan cache. Now every copy is a new op of the
    same arguments with its own plans, and rs/ar copies share the group."""
    import copy
    import pickle

    op = _op_with_a_plan(monkeypatch, tmp_path)
    assert op.manifest == tmp_path / "manifests" / "deploy.json"
    for new in (copy.copy(op), copy.deepcopy(op), pickle.loads(pickle.dumps(op))):
        assert type(new) is GemmRsAr and new is not op
        _same_arguments(new, op)
        assert new._plans == {} and new._kernels == {}
    g = CpuGroup()
    rs = GemmRsAr(300, N, K, "rs", g, arch="sm_90a", sm_budget=20)
    holder = copy.deepcopy({"op": rs, "group": g})
    assert holder["group"] is g and holder["op"].group is g       # the group is never copied
    _same_arguments(holder["op"], rs)
    assert copy.copy(rs).group is g
    with pytest.raises(TypeError, match=r"a GemmRsAr over a group \(CpuGroup\) cannot be "
                                        r"pickled: the group's buffers are mapped by its peers"):
        pickle.dumps(rs)


def test_a_group_is_shared_by_copies_and_refuses_pickle():
    """copy.copy / copy.deepcopy of a group return the group itself (its buffers are its peers'
    too); before, deepcopy raised "cannot pickle '_thread.lock'" from its launch lock. A model
    deep-copied with its group keeps one group; pickle says why it cannot."""
    import copy
    import pickle

    g = CpuGroup()
    assert copy.copy(g) is g and copy.deepcopy(g) is g
    assert copy.deepcopy([g, {"again": g}])[1]["again"] is g
    with pytest.raises(TypeError, match=r"a CpuGroup cannot be pickled: its buffers are mapped"):
        pickle.dumps(g)


def test_a_copy_keeps_the_device_the_op_resolved(monkeypatch):
    """A mode-none op built with device=None binds to the current device at its first call; a
    copy made later (e.g. copy.deepcopy of the model while another device is current) keeps that
    device instead of binding to the then-current one (found by a review: the copy's calls with
    the original's tensors were refused as on another device)."""
    import copy
    import pickle

    op = GemmRsAr(512, N, K, "none", arch="sm_90a", sm_budget=132)
    assert op.device is None
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 1)
    assert op._device() == torch.device("cuda", 1)          # what the first call does
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    for new in (copy.copy(op), copy.deepcopy(op), pickle.loads(pickle.dumps(op))):
        assert new.device == torch.device("cuda", 1) and new._device() == torch.device("cuda", 1)
    # not yet resolved: the copy resolves at its own first call, as the original would
    fresh = GemmRsAr(512, N, K, "none", arch="sm_90a", sm_budget=132)
    assert copy.deepcopy(fresh).device is None

