"""tools/link_bound.py on the CPU: the NVLink byte formulas, T_link / T_phys / eff of a row, its
time breakdown (gemm_eff, exposed, overlap), and the peer-copy probe against a fake torch
symmetric memory (no GPU)."""
from __future__ import annotations

import math
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import link_bound as lb  # noqa: E402

M, N = 8192, 7168


# ---- bytes over NVLink ---------------------------------------------------------------------------
@pytest.mark.parametrize("mode,tp,expected", [
    ("rs", 2, M * N),              # half of this rank's bf16 partial goes to the other owner
    ("ar", 2, M * N * 2),          # that, then half of the result: M*N*2 bytes in all at TP2
    ("rs", 4, M * N * 2 * 3 // 4),
    ("ar", 4, M * N * 2 * 3 // 2),
    ("rs", 8, M * N * 2 * 7 // 8),
    ("ar", 8, M * N * 2 * 7 // 4),
    ("rs", 1, 0), ("ar", 1, 0),    # one rank sends nothing
])
def test_link_bytes(mode, tp, expected):
    assert lb.link_bytes(mode, M, N, tp) == expected


def test_link_bytes_floors_and_element_size():
    assert lb.link_bytes("rs", 3, 1, 4) == 4                     # 3*2*3/4 = 4.5 bytes
    assert lb.link_bytes("ar", 3, 1, 4) == 9                     # 2*3*2*3/4 = 9
    assert lb.link_bytes("rs", 16, 16, 2, elem_bytes=4) == 16 * 16 * 2


@pytest.mark.parametrize("args", [("none", 16, 16, 2), ("ar", 0, 16, 2), ("rs", 16, 16, 0)])
def test_link_bytes_refuses(args):
    with pytest.raises(ValueError):
        lb.link_bytes(*args)


def test_transfer_us_and_gbps():
    assert lb.transfer_us(400e6, 400.0) == pytest.approx(1000.0)
    assert lb.gbps(400e6, 1000.0) == pytest.approx(400.0)
    for bad in (None, 0, -1.0, math.inf, math.nan, True):
        assert lb.transfer_us(1e6, bad) is None and lb.gbps(1e6, bad) is None


# ---- the bound of a row --------------------------------------------------------------------------
def _row(mode="ar", gemm=100.0, fused=400.0, link=400.0, tuned=None):
    return {"mode": mode, "M": M, "N": N, "tp": 2, "gemm_us": gemm, "fused_us": fused,
            "link_gbps": link, "tuned": tuned}


def test_link_bound_row():
    b = lb.physical_bound(_row(tuned={"us": 320.0}))
    t_link = M * N * 2 / 400e3                                    # 117.4 MB at 400 GB/s: 293.6 us
    assert b["link_bytes"] == M * N * 2 and b["link_us"] == pytest.approx(t_link)
    assert b["phys_us"] == pytest.approx(t_link)
    assert b["phys_eff"] == pytest.approx(t_link / 400.0)
    assert b["tuned_phys_eff"] == pytest.approx(t_link / 320.0)


def test_gemm_bound_row():
    b = lb.physical_bound(_row(mode="rs", gemm=500.0, fused=600.0))
    assert b["link_us"] == pytest.approx(M * N / 400e3) and b["phys_us"] == 500.0
    assert b["phys_eff"] == pytest.approx(500.0 / 600.0) and b["tuned_phys_eff"] is None


@pytest.mark.parametrize("change", [{"link_gbps": None}, {"gemm_us": None}, {"gemm_us": math.inf}])
def test_bound_without_an_input(change):
    b = lb.physical_bound({**_row(), **change})
    assert b["link_bytes"] == M * N * 2 and b["phys_us"] is None and b["phys_eff"] is None


def test_bound_without_a_fused_time():
    b = lb.physical_bound(_row(fused=None))
    assert b["phys_us"] is not None and b["phys_eff"] is None


# ---- the time breakdown of a row -------------------------------------------------------------------
def _parts(gemm=250.0, ours=300.0, link=200.0, fused=400.0):
    return {"gemm_us": gemm, "ours_gemm_us": ours, "link_us": link, "fused_us": fused}


def test_time_breakdown():
    b = lb.time_breakdown(_parts())
    assert b["gemm_eff"] == pytest.approx(250.0 / 300.0)          # torch.mm vs ours: ours slower
    assert b["exposed_us"] == 100.0                               # 400 - max(300, 200)
    assert b["overlap"] == pytest.approx(0.5)                     # 1 - 100 / min(300, 200)


@pytest.mark.parametrize("fused,exposed,overlap", [
    (500.0, 200.0, 0.0),      # back to back: ours + T_link, nothing hidden
    (300.0, 0.0, 1.0),        # at max(ours, T_link): the link fully hidden
    (280.0, -20.0, 1.0),      # faster than that bound: exposed < 0, overlap clipped
    (600.0, 300.0, 0.0),      # slower than back to back: clipped
])
def test_time_breakdown_limits(fused, exposed, overlap):
    b = lb.time_breakdown(_parts(fused=fused))
    assert b["exposed_us"] == pytest.approx(exposed) and b["overlap"] == overlap


def test_time_breakdown_link_longer():
    b = lb.time_breakdown(_parts(ours=100.0, link=300.0, fused=350.0))
    assert b["gemm_eff"] == 2.5 and b["exposed_us"] == 50.0 and b["overlap"] == pytest.approx(0.5)


@pytest.mark.parametrize("change,present", [
    ({"ours_gemm_us": None}, ()),                        # --no-ours-gemm or its kernel missing
    ({"ours_gemm_us": 0.0}, ()),
    ({"link_us": None}, ("gemm_eff",)),                  # no link probe
    ({"gemm_us": math.inf}, ("exposed_us", "overlap")),  # torch.mm failed
    ({"fused_us": None}, ("gemm_eff",)),                 # the fused op failed
    ({"fused_us": True}, ("gemm_eff",)),
])
def test_time_breakdown_without_an_input(change, present):
    b = lb.time_breakdown({**_parts(), **change})
    assert set(b) == {"gemm_eff", "exposed_us", "overlap"}
    assert {k for k, v in b.items() if v is not None} == set(present)
    assert lb.time_breakdown({}) == {"gemm_eff": None, "exposed_us": None, "overlap": None}


def test_breakdown_note():
    note = lb.breakdown_note()
    assert "GemmRsAr mode none" in note and "gemm_eff = T_gemm / ours GEMM" in note
    assert "exposed = fused - max(ours GEMM, T_link)" in note
    assert "overlap = 1 - exposed / min(ours GEMM, T_link), clipped to [0, 1]" in note
    assert lb.breakdown_note(False) == "ours GEMM, gemm_eff and exposed not measured (--no-ours-gemm)."


def test_link_note():
    link = {"bytes": 512 << 20, "copy": "sm", "gbps": 380.4, "sm_gbps": 380.4, "memcpy_gbps": 395.0}
    note = lb.link_note(link)
    assert "380 GB/s per GPU (sm copy of 512 MiB" in note and "memcpy 395 GB/s" in note
    assert "T_phys = max(T_gemm, T_link)" in note and "eff = T_phys / fused" in note
    assert "not measured (peer buffer: x)" in lb.link_note({"error": "peer buffer: x"})
    assert "not measured (no probe result)" in lb.link_note(None)


# ---- the probe on a fake symmetric memory ----------------------------------------------------------
class FakeSymm:
    """torch.distributed._symmetric_memory for rank 0 of 2 on the CPU: the peer's buffer is a
    tensor holding the peer's fill (2), or with `wrong`, this rank's own buffer."""

    def __init__(self, wrong=False):
        self.wrong, self.calls = wrong, []

    def empty(self, n, dtype, device):
        self.calls.append(("empty", n, dtype))
        self.mine = torch.empty(n, dtype=dtype, device=device)
        return self.mine

    def rendezvous(self, t, group_name):
        self.calls.append(("rendezvous", group_name))

        def get_buffer(rank, sizes, dtype):
            self.calls.append(("get_buffer", rank, tuple(sizes), dtype))
            return self.mine if self.wrong else torch.full(sizes, rank + 1, dtype=dtype)
        return SimpleNamespace(get_buffer=get_buffer)


DIST = SimpleNamespace(get_rank=lambda: 0, get_world_size=lambda: 2,
                       group=SimpleNamespace(WORLD=SimpleNamespace(group_name="0")))


@pytest.fixture
def no_cuda_sync(monkeypatch):
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: None)


def test_peer_copy(no_cuda_sync):
    symm = FakeSymm()
    probe = lb.PeerCopy(torch, DIST, torch.device("cpu"), (1 << 20) + 7, symm=symm)
    words = (1 << 20) // 4
    assert probe.nbytes == 1 << 20 and probe.peer == 1
    assert symm.calls == [("empty", words, torch.int32), ("rendezvous", "0"),
                          ("get_buffer", 1, (words,), torch.int32)]
    assert bool((probe.mine == 1).all())                           # this rank's fill: rank + 1
    calls = probe.calls()
    assert list(calls) == list(lb.COPIES)
    for call in calls.values():
        probe.check(call)                                          # both copy the peer's 2s
        assert bool((probe.dst == 2).all())
    probe.finish()


def test_peer_copy_check_catches_a_wrong_source(no_cuda_sync):
    probe = lb.PeerCopy(torch, DIST, torch.device("cpu"), 64, symm=FakeSymm(wrong=True))
    with pytest.raises(ValueError, match="wrong in 16 of 16 words"):
        probe.check(probe.calls()["sm"])
    with pytest.raises(ValueError, match="at least 16"):
        lb.PeerCopy(torch, DIST, torch.device("cpu"), 15, symm=FakeSymm())
