"""Real compiles (CPU, no GPU): every variant of the TP 8 matrix of both archs (the parameter
list does not depend on tp) plus a spread of other TPs, through the real build path (render ->
spawned GPU-blind workers -> cute.compile -> cache), then checks of their PTX: each variant's
kernel entry matches codegen/contract.py's parameter list, and it contains what its
mode/transport/arch/cta_group needs and none of what it must not.
"""
from __future__ import annotations

import json
import re

import pytest

from codegen import binutils, contract, ptxabi
from codegen import compile as compile_mod
from codegen.build import build
from codegen.cache import Cache
from codegen.spec import Variant, deployment_matrix

pytestmark = pytest.mark.slow

VARIANTS = deployment_matrix(8) + [
    Variant("sm_90a", "ar", "multicast", 128, 2, 4),
    Variant("sm_90a", "rs", "multicast", 256, 1, 2),
    Variant("sm_100a", "ar", "multicast", 128, 2, 16),
    Variant("sm_100a", "rs", "multicast", 256, 2, 4),
    Variant("sm_100a", "ar", "unicast", 64, 1, 2, schedule="swapab"),
    Variant("sm_100a", "rs", "unicast", 256, 1, 16, schedule="swapab"),
]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    cache = Cache(tmp_path_factory.mktemp("cache"))
    report = build(VARIANTS, jobs=2, cache=cache, progress=False)
    assert report.ok, report.failed
    return report


@pytest.fixture(scope="module")
def built(report):
    out = {}
    for v in VARIANTS:
        entry = report.entries[v]
        out[v] = (entry.file("kernel.ptx").read_text(),
                  json.loads(entry.file("meta.json").read_text()))
    return out


def _has(ptx: str, pattern: str) -> bool:
    return re.search(pattern, ptx) is not None


def _tcgen05_mma_shapes(ptx: str) -> list[tuple[int, int]]:
    """(M, N) of each tcgen05.mma kind::f16 from its instruction descriptor, an immediate the
    DSL moves right before it (bits 17-22: N >> 3, bits 24-28: M >> 4); one per tcgen05.mma."""
    descs = re.findall(r"mov\.b32\s+%r\d+, (\d+);\n\s*tcgen05\.mma\.cta_group::1\.kind::f16", ptx)
    assert descs and len(descs) == len(re.findall(r"tcgen05\.mma\.", ptx)), "a descriptor not found"
    return [(((int(d) >> 24) & 0x1F) * 16, ((int(d) >> 17) & 0x3F) * 8) for d in descs]


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.name)
def test_collective_instructions(built, v):
    ptx, _ = built[v]
    mc = v.transport == "multicast"
    assert _has(ptx, r"multimem\.st\.") == (v.mode == "ar" and mc), "multimem.st only in AR multicast"
    # the tile schedule pulls partials (multicast: one ld_reduce); swapab pushes them and sums
    # its local landing slots, so it never reduces through the switch
    pulls_mc = mc and v.schedule == "tile"
    assert _has(ptx, r"multimem\.ld_reduce") == pulls_mc, "multimem.ld_reduce only in tile multicast"
    if pulls_mc:
        assert _has(ptx, r"multimem\.ld_reduce\.relaxed\.sys\.global\.add\.acc::f32\.v4\.bf16x2")
    if v.mode == "ar" and mc:
        assert _has(ptx, r"multimem\.st\.relaxed\.sys\.global\.v4\.f32")
    collective = v.mode != "none"
    # per-tile release flags (64-bit epochs), acquire waits and (sm_90a rs/ar) pipeline waits,
    # all bounded by %globaltimer
    assert _has(ptx, r"st\.release\.sys\.global\.u64") == collective
    assert _has(ptx, r"ld\.acquire\.sys\.global\.u64") == collective
    # (and the streamk kernels' wait for another CTA's partial tile, mode none)
    assert _has(ptx, r"%globaltimer") == (collective or v.schedule == "streamk")
    if v.mode == "ar" and not mc:
        assert _has(ptx, r"st\.global\.v4"), "AR unicast stores 16 bytes to every rank"
    # the AR copy-out queue (KERNEL-CONTRACT step 4): one shared-memory atom per claim, taken
    # from the front by the communication warps and (sm_90a) from the back by the consumers
    claims = len(re.findall(r"atom\.shared\.add\.u64", ptx))
    tile_ar = v.mode == "ar" and v.schedule == "tile"
    assert claims == ((2 if v.arch == "sm_90a" else 1) if tile_ar else 0), claims


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.name)
def test_arch_instructions(built, v):
    ptx, _ = built[v]
    if v.schedule == "swapab":
        # no TMA multicast, no cluster; cta_group 2 (sm_90a): the wide kernel, one CTA per
        # (128-row W tile, token tile) (contract.swapab_wide)
        assert not _has(ptx, r"multicast::cluster")
        wide = contract.swapab_wide(v.cta_group)
        assert not _has(ptx, r"ld\.shared::cluster\.v4\.u32")
        assert not _has(ptx, r"mbarrier\.arrive\.[a-z]+\.cluster\.shared::cluster")
        if v.arch == "sm_90a":
            # WGMMA: W rows are the M (64 per warpgroup), the token tile the N (cta_group 1:
            # tiles of 32+ over two warpgroups, half the tokens each; 2: the warpgroups split
            # the 128 W rows)
            assert ".target sm_90a" in ptx
            wn = v.bn // 2 if (v.bn >= 32 and v.cta_group == 1) else v.bn
            assert not wide or built[v][1]["launch"]["cluster"] == [1, 1, 1]
            # the pipeline depth the wave-fill rule prices (dispatch.fill_cost) is the kernel's
            w_rows = contract.swapab_w_rows(v.cta_group)
            assert built[v][1]["launch"]["ab_stages"] == contract.decode_stages(v.bn, w_rows)
            assert built[v][1]["launch"]["dynamic_smem"] <= contract.DECODE_SMEM_CAPACITY
            assert built[v][1]["launch"]["bm"] == w_rows
            # the epilogue stores the transposed tile in passes where the whole tile would
            # cost the pipeline a stage (the wide kernel's token tiles of 192+): two barriers of
            # the MMA warpgroups per pass (write the pass's rows to shared memory; read them out)
            epi = contract.decode_epi_tokens(v.bn, w_rows)
            assert epi == v.bn or (wide and epi % 8 == 0 and epi < v.bn)
            mma_threads = 128 * v.cta_group if wide else 256 if v.bn >= 32 else 128
            assert built[v][1]["launch"]["block"] == [128 + mma_threads, 1, 1]
            assert len(re.findall(rf"bar\.sync\s+1, {mma_threads};", ptx)) == (
                2 * contract.decode_epi_passes(v.bn, w_rows))
            assert _has(ptx, rf"wgmma\.mma_async\.sync\.aligned\.m64n{wn}k16\.f32\.bf16\.bf16")
            assert not _has(ptx, r"tcgen05")
        else:
            # tcgen05.mma, one CTA: W rows are the M (SWAPAB_BM), the token tile the N; the
            # accumulator in TMEM, read back by tcgen05.ld
            assert ".target sm_100a" in ptx
            assert not _has(ptx, r"wgmma") and not _has(ptx, r"tcgen05\.mma\.cta_group::2")
            assert set(_tcgen05_mma_shapes(ptx)) == {(contract.SWAPAB_BM, v.bn)}
            assert _has(ptx, r"tcgen05\.ld\.sync\.aligned\.16x")
            assert _has(ptx, r"tcgen05\.wait::ld") and _has(ptx, r"tcgen05\.alloc\.cta_group::1")
        # pushes are 16-byte stores (AR multicast: one multimem.st); rs/ar readers poll their
        # landing slots (Lamport) and writers scrub -0.0 (the sentinel) to +0.0
        assert _has(ptx, r"st\.global\.v4") or v.mode == "ar" and v.transport == "multicast"
        assert _has(ptx, r"ld\.volatile\.global\.v4") == (v.mode != "none")
        assert _has(ptx, r"add\.rn\.bf16x2") == (v.mode != "none")
    elif v.schedule == "splitk":
        # the decode kernel with K split over a cluster of cta_group CTAs (sm_90a only): no TMA
        # multicast; the f32 partial tiles are read from every CTA of the cluster
        # (ld.shared::cluster, one per CTA and 16-byte vector), after remote mbarrier arrivals
        # that publish them (ready) and release them (free)
        ks = v.cta_group
        launch = built[v][1]["launch"]
        assert launch["cluster"] == [ks, 1, 1] and launch["ksplit"] == ks
        assert launch["schedule"] == "splitk"
        assert launch["ab_stages"] == contract.decode_stages(v.bn, 64, ks)
        assert not _has(ptx, r"multicast::cluster")
        if v.arch == "sm_90a":
            assert ".target sm_90a" in ptx and not _has(ptx, r"tcgen05")
            wn = v.bn // 2 if v.bn >= 32 else v.bn
            assert _has(ptx, rf"wgmma\.mma_async\.sync\.aligned\.m64n{wn}k16\.f32\.bf16\.bf16")
        else:   # compile-only: one CTA per MMA, the accumulator in TMEM
            assert ".target sm_100a" in ptx and not _has(ptx, r"wgmma")
            assert set(_tcgen05_mma_shapes(ptx)) == {(contract.SWAPAB_BM, v.bn)}
            assert not _has(ptx, r"tcgen05\.mma\.cta_group::2")
        loads = len(re.findall(r"ld\.shared::cluster\.v4\.f32", ptx))
        assert loads >= ks and loads % ks == 0, "one per cluster CTA (times the unrolling)"
        assert len(re.findall(r"mapa\.shared::cluster", ptx)) >= ks
        # (relaxed; the fences: test_splitk_handoff_orders_shared_memory_only)
        arrivals = re.findall(r"mbarrier\.arrive\.relaxed\.cluster\.shared::cluster", ptx)
        assert len(arrivals) == 2 * ks, "ready and free: one remote arrival per CTA each"
        assert _has(ptx, r"fence\.acq_rel\.cluster")
        assert _has(ptx, r"cvt\.rn\.bf16x2\.f32")   # the f32 sum rounded once
        assert _has(ptx, r"st\.global\.v4") or v.mode == "ar" and v.transport == "multicast"
        assert _has(ptx, r"ld\.volatile\.global\.v4") == (v.mode != "none")
    elif v.schedule == "splitkw":
        # mode none, sm_90a: the wide decode kernel's 128-row W tile (two MMA warpgroups of 64
        # W rows, the whole token tile as the WGMMA N) with K split over a cluster of cta_group
        # CTAs: the splitk handoff (remote arrivals, ld.shared::cluster from every CTA), each
        # CTA storing its KS-th of the tokens (16-byte stores, stopping at N)
        ks = v.cta_group
        launch = built[v][1]["launch"]
        assert ".target sm_90a" in ptx and not _has(ptx, r"tcgen05")
        assert launch["cluster"] == [ks, 1, 1] and launch["ksplit"] == ks
        assert launch["schedule"] == "splitkw" and launch["ragged_n"] is True
        assert launch["bm"] == contract.SPLITKW_W_ROWS and launch["block"] == [384, 1, 1]
        assert launch["ab_stages"] == contract.splitkw_stages(v.bn, ks) >= 2
        assert launch["dynamic_smem"] <= contract.DECODE_SMEM_CAPACITY
        assert _has(ptx, rf"wgmma\.mma_async\.sync\.aligned\.m64n{v.bn}k16\.f32\.bf16\.bf16")
        assert not _has(ptx, r"multicast::cluster")
        loads = len(re.findall(r"ld\.shared::cluster\.v4\.f32", ptx))
        assert loads >= ks and loads % ks == 0, "one per cluster CTA (times the unrolling)"
        arrivals = re.findall(r"mbarrier\.arrive\.relaxed\.cluster\.shared::cluster", ptx)
        assert len(arrivals) == 2 * ks, "ready and free: one remote arrival per CTA each"
        assert _has(ptx, r"cvt\.rn\.bf16x2\.f32") and _has(ptx, r"st\.global\.v4")
        assert not _has(ptx, r"ld\.volatile\.global")
    elif v.schedule == "swapabx":
        # mode none, sm_90a: the cta_group 1 decode kernel in clusters of cta_group CTAs that
        # share each x tile: every CTA loads its own W tile (no multicast) and one slice of the
        # x tile (box = token tile / cluster rows, multicast to the cluster); each MMA warp
        # releases a stage in every CTA of the cluster (remote arrivals); no DSMEM reads
        xm = v.cta_group
        meta = built[v][1]
        launch = meta["launch"]
        assert ".target sm_90a" in ptx and not _has(ptx, r"tcgen05")
        assert launch["cluster"] == [xm, 1, 1] and launch["xmc"] == xm and launch["ksplit"] == 1
        assert launch["schedule"] == "swapabx" and launch["ragged_n"] is False
        assert launch["bm"] == contract.SWAPAB_BM and launch["block"] == [384, 1, 1]
        assert launch["ab_stages"] == contract.decode_stages(v.bn, contract.SWAPAB_BM)
        assert launch["dynamic_smem"] <= contract.DECODE_SMEM_CAPACITY
        assert meta["tma"]["a"]["box"] == [contract.BK, v.bn // xm]
        assert meta["tma"]["t"]["box"] == [contract.BK, v.bn // xm]
        assert meta["tma"]["t"]["tail_tile"] == v.bn
        assert _has(ptx, rf"wgmma\.mma_async\.sync\.aligned\.m64n{v.bn // 2}k16\.f32\.bf16\.bf16")
        loads = r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes"
        assert _has(ptx, loads + r"\.multicast::cluster"), "x slices multicast"
        assert _has(ptx, r"cp\.async\.bulk\.tensor\.2d\.shared::cta\.global"), "W per CTA"
        assert _has(ptx, r"mbarrier\.arrive\.shared::cluster\.b64") and _has(ptx, r"mapa")
        assert not _has(ptx, r"ld\.shared::cluster")
        assert _has(ptx, r"st\.global\.v4") and not _has(ptx, r"ld\.volatile\.global")
    elif v.arch == "sm_90a":
        assert ".target sm_90a" in ptx
        assert _has(ptx, r"wgmma\.mma_async")
        assert _has(ptx, r"setmaxnreg")
        # unicast rs/ar push their partial rows into the owners' slots: TMA stores through the
        # push table's descriptors (a global-memory address, fenced once), never through the
        # kernel-parameter descriptor tma_c; every other sm_90a tile kernel stores through it
        push = contract.pushes_partials(v.arch, v.schedule, v.mode, v.transport)
        gstores = re.findall(r"cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.bulk_group "
                             r"\[%rd\d+, \{%r\d+, %r\d+\}\], \[%r\d+\];", ptx)
        assert bool(gstores) == push
        assert _has(ptx, r"fence\.proxy\.tensormap::generic\.acquire\.gpu") == push
        assert _has(ptx, r"cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.tile\.bulk_group") != push
        assert not _has(ptx, r"tcgen05")
        assert _has(ptx, r"multicast::cluster") == (v.cta_group > 1), "W tile shared by TMA multicast"
    else:
        assert ".target sm_100a" in ptx
        assert _has(ptx, r"tcgen05\.mma")
        assert not _has(ptx, r"wgmma")
        assert _has(ptx, r"tcgen05\.mma\.cta_group::2") == (v.cta_group == 2)
        assert _has(ptx, r"tcgen05\.mma\.cta_group::1") == (v.cta_group == 1)
    assert _has(ptx, r"cp\.async\.bulk\.tensor")
    # sm_90a: x's last row tile loads through its own descriptor (tma_t, box = the rows that
    # exist) and the producer completes the missing bytes on the stage's barrier; every
    # descriptor the kernel takes is prefetched
    sm90 = v.arch == "sm_90a"
    assert _has(ptx, r"mbarrier\.complete_tx\.relaxed\.cta\.shared::cta\.b64") == sm90
    # ...by one lane, as the TMA copy it completes (elect.sync): a complete-tx per lane of the
    # producer warp counts the missing bytes 32 times and breaks the pipeline (seen on the H200)
    lines = ptx.splitlines()
    for i, line in enumerate(lines):
        if "mbarrier.complete_tx" in line:
            before = "\n".join(lines[max(0, i - 8):i])
            assert "elect.sync" in before, f"complete_tx at PTX line {i} not under elect.sync"
    assert len(re.findall(r"prefetch\.tensormap", ptx)) >= len(contract.tma_operands(v.arch, v.schedule))


def _sass_lines(cubin, marker: str) -> list[str]:
    """The SASS lines of `cubin` (nvdisasm) that contain `marker`."""
    return [line for line in binutils.disassemble(cubin).splitlines() if marker in line]


def _hgmma_lines(cubin) -> list[str]:
    return _sass_lines(cubin, "HGMMA.")


@pytest.mark.parametrize("v", [v for v in VARIANTS if v.arch == "sm_90a"], ids=lambda v: v.name)
def test_wgmma_pipelined(report, v):
    """No sm_90a kernel has its WGMMAs serialized. When ptxas serializes them (its info C7514,
    e.g. when a non-WGMMA instruction reads accumulator registers inside what it takes for the
    pipeline stage) every HGMMA gets its own scoreboard (`gsb0`) and a WARPGROUP.DEPBAR waits
    for it before the next one: the swapab cta_group 1 kernels were built that way until
    2026-11-30 (templates/sm90_swapab.py.j2, the fence after the mainloop). Pipelined, only the
    last HGMMA of each k-tile's group carries gsb0."""
    lines = _hgmma_lines(report.entries[v].file("kernel.cubin"))
    assert lines, "no HGMMA in an sm_90a kernel"
    assert any("gsb0" not in line for line in lines), (
        f"every one of the {len(lines)} HGMMAs waits for itself: ptxas serialized the WGMMAs")
    if v.schedule in ("tile", "streamk"):
        # a tile kernel's k-tile is BK / 16 WGMMAs; the peeled k-tiles of the deferred stores
        # (templates/sm90_gemm.py.j2) must stay groups too: a partly serialized build (seen
        # with BN 224 and 232 consumer registers) would have more gsb0 than groups
        per_group = contract.BK // 16
        waits = sum("gsb0" in line for line in lines)
        assert len(lines) == waits * per_group, (
            f"{waits} of {len(lines)} HGMMAs wait for themselves; pipelined, one in each group "
            f"of {per_group}")


@pytest.mark.parametrize("v", [v for v in VARIANTS if v.schedule == "streamk"],
                         ids=lambda v: v.name)
def test_streamk_partials(built, v):
    """The streamk kernels (mode none, sm_90a): the tile kernel (its TMA loads and stores, W
    multicast in CTA pairs) plus a partial tile through global memory: BN / 8 16-byte f32
    stores per MMA thread, as many L2-only loads where one is summed, published by a release at
    gpu scope and waited for by a bounded acquire loop (%globaltimer) whose time-out claims the
    error record (atom.cas at system scope) and the abort word; nothing at system scope but
    that record."""
    ptx, meta = built[v]
    launch = meta["launch"]
    assert launch["streamk"] is True and launch["ragged_n"] is True
    assert launch["bn"] == v.bn and launch["cluster"] == [v.cta_group, 1, 1]
    assert len(re.findall(r"st\.global\.v4\.f32", ptx)) == v.bn // 8
    assert len(re.findall(r"ld\.global\.cg\.v4\.f32", ptx)) == v.bn // 8
    assert _has(ptx, r"st\.release\.gpu\.global\.u64") and _has(ptx, r"fence\.acq_rel\.gpu")
    assert _has(ptx, r"ld\.acquire\.gpu\.global\.u64") and _has(ptx, r"%globaltimer")
    assert _has(ptx, r"atom\.relaxed\.sys\.global\.cas")
    assert _has(ptx, r"st\.relaxed\.gpu\.global\.u64")
    assert not _has(ptx, r"\.release\.sys") and not _has(ptx, r"ld\.acquire\.sys")
    assert _has(ptx, rf"wgmma\.mma_async\.sync\.aligned\.m64n{v.bn}k16\.f32\.bf16\.bf16")
    # a cluster of cta_group CTAs along M: each loads 64 W rows per cta_group share, multicast
    assert meta["tma"]["b"]["box"] == [contract.BK, v.bn // v.cta_group]
    assert _has(ptx, r"multicast::cluster") == (v.cta_group > 1)


@pytest.mark.parametrize("v", [v for v in VARIANTS if v.arch == "sm_90a" and v.mode == "none"
                               and v.schedule in ("swapab", "splitk", "splitkw", "swapabx")],
                         ids=lambda v: v.name)
def test_decode_waits_keep_uniform_addresses(report, v):
    """The mode-none decode kernels' (swapab, splitk; and splitkw) producers wait on their stage barriers
    through uniform registers (`SYNCS.PHASECHK... [UR..]`, the retry branched out of line).
    From the ragged-K commit until 2026-12-01 (tenth session) the k-tile count was written
    (K + BK - 1) // BK and ptxas addressed every wait of the swapab kernels through per-thread
    registers with inline retry loops: no wait on UR, and they ran 0.5-1.2 us slower at decode
    sizes (BENCHMARKS.md). The rs/ar and splitk kernels kept uniform waits either way; the tile
    template's mode-none kernels have none, and moving them there measured no faster, so they
    are not held to it."""
    waits = _sass_lines(report.entries[v].file("kernel.cubin"), "SYNCS.PHASECHK")
    assert waits, "no mbarrier wait in a decode kernel"
    assert any("[UR" in line for line in waits), (
        f"all {len(waits)} mbarrier waits address shared memory through per-thread registers: "
        f"the layout that cost the decode kernels 0.5-1.2 us (see the docstring)")


@pytest.mark.parametrize("v", [v for v in VARIANTS if v.schedule in ("splitk", "splitkw")],
                         ids=lambda v: v.name)
def test_splitk_handoff_orders_shared_memory_only(report, built, v):
    """The splitk / splitkw handoff (templates/splitk_handoff.j2) publishes a partial tile with
    the release fence restricted to shared::cta and relaxed remote arrives, and waits with an
    acquire at cluster scope. Until 2026-12-02 (seventeenth session) every remote arrive was a
    release at cluster scope with a fence.acq_rel.cluster before and after: on sm_90a each is a
    MEMBAR.ALL.GPU, 2 KS + 2 in a row per tile (10 at clusters of 4), which wait for global
    memory too. One full fence is left, run only where the cluster has another work item
    (before the arrives that free the partial tiles for reuse: no restricted release fence orders
    shared::cluster reads in ptxas 13.0)."""
    ptx = built[v][0]
    assert ptx.count("fence.release.sync_restrict::shared::cta.cluster") == 1
    assert len(re.findall(r"mbarrier\.arrive\.relaxed\.cluster\.shared::cluster", ptx)) == 2 * v.cta_group
    assert not _has(ptx, r"mbarrier\.arrive\.release\.cluster"), "a release arrive at cluster scope"
    assert ptx.count("fence.acq_rel.cluster") == 1
    waits = re.findall(r"mbarrier\.try_wait\.parity\.([a-z]+\.[a-z]+)\.shared::cta", ptx)
    assert "acquire.cluster" in waits, "no cluster-scope acquire on the handoff's barriers"
    if v.arch == "sm_90a" and v.mode == "none":
        membars = _sass_lines(report.entries[v].file("kernel.cubin"), "MEMBAR.ALL.GPU")
        assert len(membars) == 1, f"{len(membars)} MEMBAR.ALL.GPU in a mode-none splitk kernel"


@pytest.mark.parametrize("v", [v for v in VARIANTS if v.schedule == "swapab"
                               or v.arch == "sm_90a"], ids=lambda v: v.name)
def test_no_local_memory(built, v):
    """The decode kernels and every sm_90a kernel keep everything in registers: no spill, no
    stack frame. The sm_90a tile kernels' register split and deferred stores were chosen so
    (templates/sm90_gemm.py.j2: EPI_NOW, REGS_*); a spill there cost up to 6%."""
    _, meta = built[v]
    (res,) = meta["resources"]["kernels"].values()
    assert res["local_bytes"] == 0 and res["stack_bytes"] == 0, res


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.name)
def test_kernel_entry_is_the_contract(built, v):
    """The PTX .entry signature, parsed here independently of the build, is exactly the
    contract's parameter list: one parameter per contract entry, each of its kind's size."""
    ptx, meta = built[v]
    (entry,) = ptxabi.parse_entries(ptx)
    want = contract.kernel_params(v.arch, v.mode, v.schedule)
    assert [p.size for p in entry.params] == [contract.kind_size(k) for _, k in want]
    assert [(p["name"], p["kind"]) for p in meta["abi"]["params"]] == list(want)
    assert entry.name == meta["symbol"]


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.name)
def test_kernel_is_named_after_its_variant(built, v):
    """What a profiler shows: the PTX entry, the cubin's function (read from the cubin by the
    resource report) and meta.json's symbol are all the variant's name + "_cutlass_0"."""
    ptx, meta = built[v]
    want = contract.kernel_symbol(v.name)
    assert [e.name for e in ptxabi.parse_entries(ptx)] == [want]
    assert meta["symbol"] == want and list(meta["resources"]["kernels"]) == [want]
    assert contract.variant_name_of(want) == v.name and re.fullmatch(r"[A-Za-z_]\w*", want)


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.name)
def test_meta_says_where_the_last_tile_reaches_past_n(built, v):
    """The real templates' meta.json `launch.ragged_n` (what kernel.contract_mismatch trusts): the
    sm_90a tile kernels in every mode (contract.tile_ragged_n; rs/ar since the fourteenth
    session), the decode kernels where contract.swapab_ragged_n / splitk_ragged_n say so, every
    splitkw kernel; never sm_100a's tiles."""
    _, meta = built[v]
    ragged = meta["launch"].get("ragged_n") is True
    if v.schedule == "tile":
        assert ragged == contract.tile_ragged_n(v.arch, v.mode) == (v.arch == "sm_90a")
    elif v.schedule == "swapab":
        assert ragged == contract.swapab_ragged_n(v.cta_group, v.arch)
    elif v.schedule == "splitk":   # (sixteenth session: mode none on sm_90a)
        assert ragged == contract.splitk_ragged_n(v.arch, v.mode) == (
            v.arch == "sm_90a" and v.mode == "none")
    elif v.schedule == "splitkw":
        assert ragged


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.name)
def test_meta_abi_matches_ptx(built, v):
    ptx, meta = built[v]
    entry = re.search(r"\.entry\s+(\S+)\(([^)]*)\)", ptx, re.S)
    assert entry and entry.group(1) == meta["symbol"]
    n_params = len(re.findall(r"\.param\s", entry.group(2)))
    names = [p["name"] for p in meta["abi"]["params"]]
    assert len(names) == n_params
    assert names[:2] == ["tma_a", "tma_a_shape"]
    assert ("rank" in names) == (v.mode != "none")
    # a CTA cluster per cta_group, except mode none's wide decode kernel (one CTA, no cluster)
    wide = v.schedule == "swapab" and contract.swapab_wide(v.cta_group)
    assert meta["launch"]["cluster"][0] == (1 if wide else v.cta_group)
    assert meta["launch"]["dynamic_smem"] > 0


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.name)
def test_waits_for_the_previous_grid_before_global_memory(built, v):
    """Every kernel is launched with programmatic serialization (launch "pdl"), so it may start
    while the previous kernel still writes its inputs: griddepcontrol.wait must come before
    the first instruction that may touch global memory; no kernel triggers its dependents
    early (measured slower, templates/ptx/comm_ops.py.j2 await_previous_grid)."""
    ptx, meta = built[v]
    assert meta["launch"]["pdl"] is True
    wait = ptx.index("griddepcontrol.wait")
    assert "griddepcontrol.launch_dependents" not in ptx
    first = compile_mod._GLOBAL_ACCESS.search(ptx)
    assert first is not None and wait < first.start(), first and first.group(0)
    compile_mod.check_pdl_prologue(ptx, meta["launch"])
