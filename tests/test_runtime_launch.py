"""Launch configuration and KernelTimeoutError without a GPU (cuda-python structs only)."""

from codegen.runtime.cache_index import CacheEntry
from codegen.runtime.driver import cuda
from codegen.runtime.kernel import LoadedKernel

META = {
    "variant": "gemm_rs_unicast_sm90a_bn128_cg2_tp8_bf16", "symbol": "k",
    "files": {}, "abi": {"params": [{"name": "m", "kind": "u32", "size": 4, "align": 4}]},
    "launch": {"block": [384, 1, 1], "cluster": [2, 1, 1], "dynamic_smem": 200704, "bm": 128,
               "bn": 128, "bk": 64, "cta_group": 2, "min_grid_multiple": 1},
}


def _kernel(cluster=(2, 1, 1), **launch):
    meta = dict(META, launch=dict(META["launch"], cluster=list(cluster), **launch))
    return LoadedKernel(CacheEntry(meta["variant"], "k", None, b"", "0" * 64, meta), 0)


def test_config_with_cluster():
    cfg = _kernel().launch_config(132, 0x1234)
    assert (cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ) == (132, 1, 1)
    assert (cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ) == (384, 1, 1)
    assert cfg.sharedMemBytes == 200704
    assert int(cfg.hStream) == 0x1234
    assert cfg.numAttrs == 1
    a = cfg.attrs[0]
    assert a.id == cuda.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    assert (a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z) == (2, 1, 1)


def test_config_without_cluster():
    cfg = _kernel((1, 1, 1)).launch_config(7, 0)
    assert cfg.numAttrs == 0 and cfg.gridDimX == 7


PROGRAMMATIC = cuda.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION


def test_pdl_kernel_gets_programmatic_serialization(monkeypatch):
    """A kernel built with await_previous_grid (launch "pdl": true) is launched with
    programmatic stream serialization, after its cluster attribute."""
    monkeypatch.setenv("CODEGEN_PDL", "1")
    cfg = _kernel(pdl=True).launch_config(132, 0x1234)
    assert cfg.numAttrs == 2
    assert cfg.attrs[0].id == cuda.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    assert cfg.attrs[1].id == PROGRAMMATIC
    assert cfg.attrs[1].value.programmaticStreamSerializationAllowed == 1


def test_entry_without_pdl_and_the_default_launch_plainly(monkeypatch):
    """An entry built before await_previous_grid existed must never get the attribute (it would
    read its inputs while the previous kernel still writes them), even with CODEGEN_PDL on;
    without CODEGEN_PDL (the default) no kernel gets it."""
    monkeypatch.setenv("CODEGEN_PDL", "1")
    for k in (_kernel((1, 1, 1)), _kernel((1, 1, 1), pdl="yes"), _kernel((1, 1, 1), pdl=False)):
        assert not k.pdl and k.launch_config(7, 0).numAttrs == 0
    for off in ("0", ""):
        monkeypatch.setenv("CODEGEN_PDL", off)
        assert _kernel((1, 1, 1), pdl=True).launch_config(7, 0).numAttrs == 0
    monkeypatch.delenv("CODEGEN_PDL")
    assert _kernel((1, 1, 1), pdl=True).launch_config(7, 0).numAttrs == 0


def test_max_active_clusters_asks_the_driver_once(monkeypatch):
    """LoadedKernel.max_active_clusters: the driver's cuOccupancyMaxActiveClusters at the
    kernel's own launch config (block, shared memory, cluster), asked once and kept; None for a
    kernel without a cluster (the splitk grid then has nothing to cap)."""
    import codegen.runtime.kernel as kernel_mod

    asked = []

    def fake_call(name, func, cfg):
        asked.append((name, func, cfg.blockDimX, cfg.sharedMemBytes, cfg.numAttrs,
                      cfg.attrs[0].value.clusterDim.x, cfg.gridDimX))
        return 30
    monkeypatch.setattr(kernel_mod, "call", fake_call)
    k = _kernel((4, 1, 1))
    k._function = "fn"                      # as if loaded
    assert k.cluster_size == 4
    assert k.max_active_clusters == 30 and k.max_active_clusters == 30
    assert asked == [("cuOccupancyMaxActiveClusters", "fn", 384, 200704, 1, 4, 4)]
    assert _kernel((1, 1, 1)).max_active_clusters is None
