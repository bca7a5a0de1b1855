"""tools/sass_diff.py: the SASS counts it compares, on text whose answer is known and on a real
cubin (the tiny DSL kernel of conftest's `tiny_dir`)."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from codegen import binutils

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import sass_diff  # noqa: E402

# the two layouts of one wait seen in 2026-12-01's decode kernels, and the other counted kinds
SASS = """
        /*07d0*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P1, [R11+URZ+0x60], R9 ;
        /*07f0*/              @!P1 SYNCS.PHASECHK.TRANS64 P1, [R11+URZ+0x60], R9 ;
        /*0800*/              @!P1 BRA 0x7c0 ;
        /*07e0*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P2, [UR9+0x60], R8 ;
        /*0810*/                   UTMALDG.2D [UR8], [UR16], desc[URZ] ;
        /*0820*/                   HGMMA.64x16x16.F32.BF16 R24, gdesc[UR4], RZ, !UPT ;
        /*0830*/                   HGMMA.64x16x16.F32.BF16 R24, gdesc[UR8], R24, gsb0 ;
        /*0840*/               @P0 STL [R1], R2 ;
        /*0850*/                   UTMASTG.2D [UR4], [UR6] ;
        /*0860*/                   BRA 0x860;
                                                                  /* 0x000fc80000000000 */
"""


def test_sass_stats_counts_what_it_names():
    s = sass_diff.sass_stats(SASS)
    assert s == {"insts": 10, "waits": 3, "waits_ur": 1, "branches": 2, "hgmma": 2,
                 "hgmma_gsb0": 1, "tma_ld": 1, "tma_st": 1, "local": 1}


def test_changed_and_compare():
    a = dict(sass_diff.sass_stats(SASS), regs=40)
    assert not sass_diff.changed(a, dict(a), 0.02)
    assert not sass_diff.changed(a, dict(a, insts=10), 0.0)
    assert sass_diff.changed(a, dict(a, insts=11), 0.02)          # 10% > 2%
    assert not sass_diff.changed(a, dict(a, insts=11), 0.2)
    assert sass_diff.changed(a, dict(a, waits_ur=0), 1.0)         # any other count
    lines = sass_diff.compare({"k1": a, "k2": a}, {"k1": dict(a, waits_ur=0), "k2": a}, 0.02)
    assert len(lines) == 3 and lines[2].startswith("| k1 |") and "| 1 -> 0 |" in lines[2]
    assert len(sass_diff.compare({"k1": a}, {"k1": a}, 0.02, every=True)) == 3


def _root(base: Path, cubin: Path) -> Path:
    entry = base / "sm_90a" / "gemm_none_sm90a_swapab_bn16_cg1_bf16" / "0123456789abcdef"
    entry.mkdir(parents=True)
    shutil.copy(cubin, entry / "kernel.cubin")
    return base


def test_real_cubin_end_to_end(tiny_dir, tmp_path, capsys):
    pytest.importorskip("cutlass")
    try:
        binutils.require_tool("nvdisasm")
    except Exception as e:  # noqa: BLE001 - the tool's own error names what to install
        pytest.skip(str(e))
    cubin = tiny_dir / "tiny.cubin"
    old, new = _root(tmp_path / "old", cubin), _root(tmp_path / "new", cubin)
    stats = sass_diff.kernel_stats(cubin)
    assert stats["insts"] > 0 and stats["regs"] > 0
    assert sass_diff.main([str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert "1 kernels in both roots, 0 listed" in out
    with pytest.raises(SystemExit) as e:
        sass_diff.main([str(old), str(tmp_path / "empty")])
    assert e.value.code == 2
