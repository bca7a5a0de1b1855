"""The streamk schedule's host side (CPU): which CTA computes which k-tiles
(contract.streamk_split / streamk_start / streamk_segments, the arithmetic the kernel runs on DSL
integers), the launch grid, the default (BN, cta_group), and an op fixed to it."""
import random

import pytest

from codegen import contract
from codegen.runtime import InputError, dispatch
from codegen.runtime.op import GemmRsAr


def _cover(num_work, k_tiles, clusters):
    """{(work item, k-tile): cluster} over every cluster's pieces; asserts no unit twice."""
    seen = {}
    for c in range(clusters):
        for t, k0, k1 in contract.streamk_segments(c, num_work, k_tiles, clusters):
            assert 0 <= t < num_work and 0 <= k0 < k1 <= k_tiles
            for k in range(k0, k1):
                assert (t, k) not in seen, (num_work, k_tiles, clusters, t, k)
                seen[(t, k)] = c
    return seen


@pytest.mark.parametrize("seed", range(6))
def test_split_covers_every_unit_once_and_the_rest_is_whole_tiles(seed):
    rng = random.Random(seed)
    for _ in range(200):
        clusters = rng.randint(1, 140)
        num_work = rng.randint(1, 600)
        k_tiles = rng.randint(1, 300)
        sk = contract.streamk_split(num_work, clusters)
        seen = _cover(num_work, k_tiles, clusters)
        assert set(seen) == {(t, k) for t in range(sk) for k in range(k_tiles)}
        # the split: none on whole waves, all below one wave, else the short wave + one wave
        if num_work % clusters == 0:
            assert sk == 0
        elif num_work < clusters:
            assert sk == num_work
        else:
            assert sk == clusters + num_work % clusters
        # the tiles after the split go one per cluster per wave: as many for every cluster,
        # give or take one
        rest = [len(range(sk + c, num_work, clusters)) for c in range(clusters)]
        assert max(rest) - min(rest) <= 1 and sum(rest) == num_work - sk
        # every cluster's share of the split differs by at most one k-tile
        shares = [contract.streamk_start(c + 1, num_work, k_tiles, clusters)
                  - contract.streamk_start(c, num_work, k_tiles, clusters)
                  for c in range(clusters)]
        assert max(shares) - min(shares) <= 1


@pytest.mark.parametrize("seed", range(4))
def test_every_output_unit_once_in_sets_of_lanes(seed):
    """The kernel's whole mapping (contract.streamk_pieces): every (row block, N tile, k-tile)
    of the call computed exactly once; the clusters of a set take the same N tile and k-tiles
    at each step (one W tile for all their row blocks); a piece starting past k-tile 0 is only
    ever a cluster's first (the one partial its slot holds), and the piece holding k-tile 0 of
    that tile belongs to the same lane of an earlier set and ends where it starts."""
    rng = random.Random(seed)
    for _ in range(150):
        clusters, rows = rng.randint(1, 140), rng.randint(1, 40)
        n_tiles, k_tiles = rng.randint(1, 80), rng.randint(1, 100)
        lanes = contract.streamk_lanes(rows, clusters)
        owner, pieces = {}, {}
        for c in range(clusters):
            pieces[c] = contract.streamk_pieces(c, rows, n_tiles, k_tiles, clusters)
            for i, (r, nt, k0, k1) in enumerate(pieces[c]):
                assert k0 > 0 and i == 0 or k0 == 0
                for k in range(k0, k1):
                    assert (r, nt, k) not in owner
                    owner[(r, nt, k)] = c
        every = {(r, nt, k) for r in range(rows) for nt in range(n_tiles) for k in range(k_tiles)}
        assert every <= set(owner)
        for c, ps in pieces.items():
            if c // lanes < clusters // lanes:      # a cluster of a whole set
                first = contract.streamk_pieces(c - c % lanes, rows, n_tiles, k_tiles, clusters)
                assert [(nt, k0, k1) for _, nt, k0, k1 in ps] == [
                    (nt, k0, k1) for _, nt, k0, k1 in first]
            else:
                assert ps == []
            if ps and ps[0][2] > 0:
                r, nt, k0, _ = ps[0]
                f = owner[(r, nt, 0)]
                assert f < c and f % lanes == c % lanes
                assert owner[(r, nt, k0 - 1)] in range(f, c)


def test_grid_every_resident_cluster_but_at_least_min_units_each():
    # M 384, N 13944, K 14312: 165 tiles of 128 x 256, plenty of k-tiles: the whole budget
    assert dispatch.streamk_grid(384, 13944, 14312, 256, 1, 132) == 132
    assert dispatch.streamk_grid(384, 13944, 14312, 256, 2, 132) == 132
    assert dispatch.streamk_grid(384, 13944, 14312, 256, 2, 132, max_clusters=60) == 120
    # one tile of 2 k-tiles: one cluster (fewer units than STREAMK_MIN_UNITS)
    assert dispatch.streamk_grid(16, 256, 128, 256, 1, 132) == 1
    assert dispatch.streamk_grid(16, 256, 128, 256, 2, 132) == 2
    # one tile of 64 k-tiles: 64 / STREAMK_MIN_UNITS clusters
    assert dispatch.streamk_grid(100, 200, 4096, 256, 1, 132) == 64 // contract.STREAMK_MIN_UNITS
    # an odd budget in pairs: whole clusters
    assert dispatch.streamk_grid(4096, 8192, 4096, 256, 2, 7) == 6
    # clusters of 3 / 4: whole clusters, at most those the device holds
    assert dispatch.streamk_grid(384, 13944, 14312, 192, 3, 132, max_clusters=40) == 120
    assert dispatch.streamk_grid(512, 13944, 14312, 256, 4, 132) == 132


def test_default_and_fixed_choices():
    # the cluster that covers the row tiles without a padded one
    assert dispatch.streamk_default(384) == (192, 3)
    assert dispatch.streamk_default(512) == (256, 4)
    assert dispatch.streamk_default(256) == (256, 2)
    assert dispatch.streamk_default(640) == (256, 1)
    assert dispatch.streamk_default(384, bn=256) == (256, 1)
    assert dispatch.streamk_default(384, cta_group=2) == (256, 2)
    assert dispatch.streamk_default(512, bn=192) == (192, 1)
    pairs = set(contract.streamk_pairs())
    assert pairs == {(192, 1), (192, 3), (256, 1), (256, 2), (256, 4)}
    for M in range(1, 2000, 37):
        assert dispatch.streamk_default(M) in pairs
    op = GemmRsAr(4096, 13944, 14312, "none", schedule="streamk", device="cpu", arch="sm_90a",
                  sm_budget=132)
    assert op.choice(384) == ("streamk", 192, 3)
    assert op.variant(1024).name == "gemm_none_sm90a_streamk_bn256_cg4_bf16"
    assert op.max_served_m == 4096


def _op_h200(N, K):
    op = GemmRsAr(512, N, K, "none", arch="sm_90a", sm_budget=132)
    op._slots = {s: {2: 66, 4: 30} for s in ("splitk", "splitkw", "swapabx")}
    return op


@pytest.mark.parametrize("N,K,M", [
    # measured (calls 5 / 6, one H200; the rules' pick in pairs -> streamk192c3, torch.mm / ours)
    (15872, 11768, 336),   # tile256c2 0.80 -> 0.96
    (13584, 6952, 384),    # tile224c2 0.70 -> 0.79
    (15456, 12312, 384),   # tile256c2 0.80 -> 0.99 (held out)
    (8264, 16168, 352),    # tile256c2 0.75 -> 0.83 (held out)
])
def test_rule_replaces_a_tile_pair_at_three_row_tiles(N, K, M, monkeypatch):
    op = _op_h200(N, K)
    assert op.choice(M) == ("streamk", 192, 3)
    monkeypatch.setattr(dispatch, "STREAMK_RULE", False)
    off = op.choice(M)
    assert off[0] == "tile" and off[2] == 2, off


def test_rule_leaves_every_other_pick():
    """Only a tile pick in CTA pairs at three row tiles from M 321 is replaced: a decode or
    cta_group 1 pick there (which beat streamk192c3) stays, and so does every pick at other
    row counts."""
    for N, K in ((12464, 15648), (13200, 8160), (11464, 6320), (14968, 12688), (15872, 11768),
                 (7168, 2304), (4096, 14336)):
        op = _op_h200(N, K)
        for M in (1, 16, 160, 256, 300, 320, 321, 336, 384, 385, 512, 1024, 2048):
            got = op.choice(M)
            dispatch.STREAMK_RULE = False
            try:
                off = op.choice(M)
            finally:
                dispatch.STREAMK_RULE = True
            pair = off[0] == "tile" and off[2] == 2 and 321 <= M <= 384
            assert got == (("streamk", 192, 3) if pair else off), (N, K, M, got, off)
    assert dispatch.streamk_instead(384, ("tile", 224, 2), "sm_100a") == ("tile", 224, 2)


@pytest.mark.parametrize("kwargs", [dict(mode="rs"), dict(bn=128), dict(cta_group=5),
                                    dict(arch="sm_100a"), dict(bn=256, cta_group=3),
                                    dict(bn=192, cta_group=2)])
def test_refused(kwargs):
    args = dict(mode="none", schedule="streamk", device="cpu")
    args.update(kwargs)
    mode = args.pop("mode")
    with pytest.raises(InputError):
        GemmRsAr(1024, 4096, 2304, mode, **args)
