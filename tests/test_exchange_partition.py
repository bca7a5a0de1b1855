"""The exchange's work partition (codegen/contract.py: owner_units, unit_piece, cta_units,
copy_items, copy_item_unit), the formulas the tile kernels evaluate on DSL integers
(templates/comm_phase.py.j2), checked here on Python integers over ragged shapes: every row of
the output is reduced by exactly one (owner, CTA) and, for AR, written exactly once on every
rank (unicast: its own rows by its reduction, the others' by the copy-out), whatever M, TP, BN
and grid size are.
"""
from __future__ import annotations

import pytest

from codegen import contract

MS = [1, 2, 3, 7, 15, 16, 17, 127, 128, 129, 255, 256, 300, 511, 1000, 1025, 4096, 8205]
GRIDS = [1, 3, 66, 132]


def _cases():
    for tp in (2, 4, 8, 16):
        for bn, n in ((128, 384), (256, 768)):
            for m in MS:
                yield tp, bn, n, m


def _group(tp, m):
    """The unit order's group of row tiles: the kernels' (raster_unit_rows, CTA group 1 or 2,
    alternating with M) or, for the smallest M, 1 (row tiles one at a time)."""
    return 1 if m < 16 else contract.raster_unit_rows(1 + m % 2, tp)


def _pieces(o, m, tp, n_tiles, cta, ncta):
    """The (row, column tile) cells of owner o's units that CTA cta takes."""
    chunk = contract.chunk(m, tp)
    group = _group(tp, m)
    units = contract.owner_units(o, m, chunk, n_tiles)
    taken = list(range(cta, units, ncta))
    assert len(taken) == max(0, contract.cta_units(units, cta, ncta))
    cells = []
    for u in taken:
        t, nt, r0, r1 = contract.unit_piece(o, u, m, chunk, n_tiles, group)
        assert o * chunk <= r0 < r1 <= min(m, (o + 1) * chunk), (o, u, r0, r1)
        assert t * contract.BM <= r0 and r1 <= (t + 1) * contract.BM, "a unit stays in its tile"
        cells += [(row, nt) for row in range(r0, r1)]
    return cells


@pytest.mark.parametrize("tp,bn,n,m", list(_cases()))
def test_every_row_reduced_once(tp, bn, n, m):
    n_tiles = n // bn
    for ncta in GRIDS:
        cells = []
        for o in range(tp):
            for cta in range(ncta):
                cells += _pieces(o, m, tp, n_tiles, cta, ncta)
        assert sorted(cells) == [(row, nt) for row in range(m) for nt in range(n_tiles)]


@pytest.mark.parametrize("transport", ["multicast", "unicast"])
@pytest.mark.parametrize("tp,bn,n,m", list(_cases()))
def test_ar_output_rows_written_once_on_every_rank(tp, bn, n, m, transport):
    """Every row of every rank's AR output is written exactly once: multicast: all by the
    copy-out; unicast: the rank's own chunk by its reduction (straight into out), the other
    owners' rows by the copy-out (contract.ar_unicast_copies_out)."""
    n_tiles = n // bn
    chunk = contract.chunk(m, tp)
    for ncta in (1, 66, 132):
        for rank in {0, tp // 2, tp - 1}:
            cells = []
            if transport == "unicast":
                for cta in range(ncta):
                    cells += _pieces(rank, m, tp, n_tiles, cta, ncta)
            for cta in range(ncta):
                items = contract.copy_items(m, n_tiles, cta, ncta, tp)
                assert items % tp == 0
                for c in range(items):
                    o, u = contract.copy_item_unit(c, rank, cta, ncta, tp)
                    assert c % tp != 0 or o == rank, "each unit index starts with the own piece"
                    if transport == "unicast" and not contract.ar_unicast_copies_out(o, rank):
                        continue                                          # QUEUE_SKIP
                    if u < contract.owner_units(o, m, chunk, n_tiles):   # else: QUEUE_SKIP
                        t, nt, r0, r1 = contract.unit_piece(o, u, m, chunk, n_tiles,
                                                            _group(tp, m))
                        cells += [(row, nt) for row in range(r0, r1)]
                # the communication warps' loop visits every unit index of this CTA's reduce
                # units, so it reaches every copy item too
                own = contract.cta_units(contract.owner_units(rank, m, chunk, n_tiles), cta, ncta)
                assert items // tp >= own
            assert sorted(cells) == [(row, nt) for row in range(m) for nt in range(n_tiles)]



@pytest.mark.parametrize("rows", [1, 2, 7, 15, 16, 17, 33, 64, 65])
@pytest.mark.parametrize("cols", [1, 3, 28, 56])
@pytest.mark.parametrize("group", [1, 2, 4, 16])
def test_grouped_order_is_a_bijection(rows, cols, group):
    """The tile schedule's visiting order (contract.grouped; the kernels' tile_of_work): every
    (row, column) once, the rows fastest within a group of `group` rows, every column of a
    group before the next group."""
    seen = [contract.grouped(i, rows, cols, group) for i in range(rows * cols)]
    assert sorted(seen) == [(r, c) for r in range(rows) for c in range(cols)]
    for i, (r, c) in enumerate(seen):
        g = r // group
        assert g * group * cols <= i < min(rows, (g + 1) * group) * cols, (i, r, c)
        in_group = min(group, rows - g * group)
        assert i == g * group * cols + c * in_group + r - g * group
    for i in range(rows * cols, rows * cols + 3 * cols):   # past the grid: finite, no error
        contract.grouped(i, rows, cols, group)


@pytest.mark.parametrize("tp", [2, 4, 8])
@pytest.mark.parametrize("cta_group", [1, 2])
def test_units_follow_the_visiting_order(tp, cta_group):
    """An owner's units go through its row tiles in groups of raster_unit_rows, every column
    tile of a group before the next: the order in which the GEMM (groups of RASTER_ROW_BLOCKS
    row blocks of BM x cta_group rows, owners interleaved) finishes them."""
    group = contract.raster_unit_rows(cta_group, tp)
    assert group * tp == contract.RASTER_ROW_BLOCKS * cta_group
    m, n_tiles = 8192 * tp, 28
    chunk = contract.chunk(m, tp)
    for o in (0, tp - 1):
        first = o * chunk // contract.BM
        for u in range(3 * group * n_tiles):
            t, nt, _, _ = contract.unit_piece(o, u, m, chunk, n_tiles, group)
            assert (t - first) // group == u // (group * n_tiles)
            assert nt == (u % (group * n_tiles)) // group
