from pathlib import Path

import pytest

from codegen import binutils as tools
from codegen.ptxabi import Param, PtxParseError, parse_entries
from codegen.resources import resources_from_cubin

TINY = "kernel_cutlass_scale_kernel_tensorptrf32gmemalign16o1_tensorptrf32gmemalign16o1__0"

SAMPLE = """
.version 9.4
.target sm_90a
.address_size 64

// a comment mentioning .entry fake_entry( .param .u32 x )
.extern .shared .align 1024 .b8 __dynamic_shmem__0[];

.visible .entry gemm_kernel(
\t.param .align 64 .b8 gemm_kernel_param_0[128],
\t.param .align 4 .b8 gemm_kernel_param_1[4],
\t.param .u32 gemm_kernel_param_2,
\t.param .u64 gemm_kernel_param_3,
\t.param .s32 gemm_kernel_param_4,
\t.param .s64 gemm_kernel_param_5,
\t.param .f32 gemm_kernel_param_6,
\t.param .f64 gemm_kernel_param_7,
\t.param .u8 gemm_kernel_param_8,
\t.param .u16 gemm_kernel_param_9,
\t.param .b8 gemm_kernel_param_10[12],
\t.param .u64 .ptr .global .align 16 gemm_kernel_param_11
)
.reqntid 384, 1, 1
.explicitcluster
.reqnctapercluster 2, 1, 1
{
\tret;
}

.entry no_params()
.maxntid 128, 1, 1
{
\tret;
}
"""


def test_parse_literal_sample():
    entries = parse_entries(SAMPLE)
    assert [e.name for e in entries] == ["gemm_kernel", "no_params"]
    params = entries[0].params
    got = [(p.index, p.ptx_type, p.size, p.align) for p in params]
    assert got == [
        (0, "b8", 128, 64), (1, "b8", 4, 4), (2, "u32", 4, 4), (3, "u64", 8, 8), (4, "s32", 4, 4),
        (5, "s64", 8, 8), (6, "f32", 4, 4), (7, "f64", 8, 8), (8, "u8", 1, 1), (9, "u16", 2, 2),
        (10, "b8", 12, 1), (11, "u64", 8, 8),  # .ptr .align 16 is the pointee's alignment
    ]
    assert params[3] == Param(3, "gemm_kernel_param_3", "u64", 8, 8)
    assert entries[0].reqntid == (384, 1, 1)
    assert entries[0].directives["reqnctapercluster"] == "2, 1, 1" and "explicitcluster" in entries[0].directives
    assert entries[1].params == [] and entries[1].reqntid is None
    assert entries[0].to_dict()["params"][0] == {"index": 0, "name": "gemm_kernel_param_0",
                                                 "ptx_type": "b8", "size": 128, "align": 64}


def test_unknown_param_is_a_clear_error():
    with pytest.raises(PtxParseError, match=r"\.param \.v4 k_p"):
        parse_entries(".visible .entry k(\n .param .v4 k_p\n)\n{}")


def test_parse_real_dsl_ptx(tiny_dir):
    (entry,) = parse_entries((tiny_dir / "tiny.ptx").read_text())
    assert entry.name == TINY
    # two cute.Tensor args (struct {u64 ptr; i32 dynamic dim}, .align 8) and an f32 scalar
    assert [(p.ptx_type, p.size, p.align) for p in entry.params] == [("b8", 16, 8), ("b8", 16, 8), ("f32", 4, 4)]
    assert [p.name for p in entry.params] == [f"{TINY}_param_{i}" for i in range(3)]
    assert entry.reqntid == (128, 1, 1)


EXPECTED = {"registers": 12, "stack_bytes": 0, "local_bytes": 0, "static_smem_bytes": 1024}


def test_resources_from_elf(tiny_dir):
    res = resources_from_cubin((tiny_dir / "tiny.cubin").read_bytes(), use_tool=False)
    assert res == {"tool": "elf", "kernels": {TINY: EXPECTED}}


@pytest.mark.skipif(tools.find_tool("cuobjdump") is None, reason="needs cuobjdump (pip install nvidia-cuda-cuobjdump)")
def test_resources_from_cuobjdump_agree_with_elf(tiny_dir):
    res = resources_from_cubin((tiny_dir / "tiny.cubin").read_bytes())
    assert res == {"tool": "cuobjdump", "kernels": {TINY: EXPECTED}}


def test_resources_rejects_non_elf():
    with pytest.raises(ValueError, match="not a 64-bit little-endian ELF"):
        resources_from_cubin(b"not a cubin at all", use_tool=False)


def test_tool_discovery(monkeypatch, tmp_path):
    fake = tmp_path / "bin" / "nvdisasm"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(tools, "_wheel_dirs", lambda: [])
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    assert tools.find_tool("nvdisasm") == fake
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "nothing"))
    if not Path("/usr/local/cuda/bin/nvdisasm").exists():
        with pytest.raises(tools.ToolNotFound, match="pip install nvidia-cuda-nvdisasm"):
            tools.require_tool("nvdisasm")


def test_disassemble(tiny_dir, tmp_path):
    """binutils.disassemble: the SASS of a real cubin; a file nvdisasm refuses raises
    DisassemblyFailed naming it (codegen inspect --sass prints that)."""
    if tools.find_tool("nvdisasm") is None:
        pytest.skip("needs nvdisasm (pip install nvidia-cuda-nvdisasm)")
    assert "EXIT" in tools.disassemble(tiny_dir / "tiny.cubin")
    bad = tmp_path / "bad.cubin"
    bad.write_bytes(b"not a cubin at all")
    with pytest.raises(tools.DisassemblyFailed, match="nvdisasm failed on .*bad.cubin"):
        tools.disassemble(bad)
