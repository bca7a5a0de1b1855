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


def _kernel(cluster=(2, 1, 1)):
    meta = dict(META, launch=dict(META["launch"], cluster=list(cluster)))
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
