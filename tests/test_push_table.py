"""The push table (codegen/runtime/push_table.py): what each rank's epilogue stores through."""
import struct

import pytest

from codegen import contract
from codegen.runtime import push_table


def test_push_descriptors_encode_each_owner_slot():
    calls = []

    def fake(ptr, rows, inner, row_stride, box, swizzle):
        calls.append((ptr, rows, inner, row_stride, tuple(box), swizzle))
        return struct.pack("<QQ", ptr, rows).ljust(contract.TMA_DESC_BYTES, b"\0")

    tp, max_M, N, rank = 4, 1000, 7168, 1
    rp = contract.rows_pad(max_M)
    slot = contract.push_slot_rows(rp, tp)
    G = contract.PUSH_GUARD
    wr = contract.workspace_rows(rp, tp)
    assert wr == tp * (G + slot)
    ws = [0x7000_0000_0000 + o * 0x1_0000_0000 for o in range(tp)]
    blob = push_table.push_descriptors(ws, rank, rp, N, encode=fake)
    fams = contract.PUSH_BOXES
    assert len(blob) == len(fams) * 2 * tp * contract.TMA_DESC_BYTES
    for i, (f, par, o) in enumerate((f, par, o) for f in range(len(fams)) for par in (0, 1)
                                    for o in range(tp)):
        base = ws[o] + (par * wr + rank * (G + slot)) * N * 2
        # descriptor (family f, parity, owner o): owner o's workspace, parity half, the slot
        # of `rank` from its guard: guard + slot rows x N; local row 0 is coordinate G
        assert calls[i] == (base, G + slot, N, 2 * N, *fams[f])
        assert base + G * N * 2 == ws[o] + contract.push_row(par, rank, 0, rp, tp) * N * 2
        assert struct.unpack_from("<QQ", blob, i * contract.TMA_DESC_BYTES) == (base, G + slot)


def test_push_families():
    assert contract.push_family(32) == 0 and contract.push_family(64) == 1
    with pytest.raises(ValueError):
        contract.push_family(128)


def test_pushing_kernels():
    assert contract.pushes_partials("sm_90a", "tile", "rs", "unicast")
    assert contract.pushes_partials("sm_90a", "tile", "ar", "unicast")
    assert not contract.pushes_partials("sm_90a", "tile", "ar", "multicast")
    assert not contract.pushes_partials("sm_100a", "tile", "rs", "unicast")
    assert not contract.pushes_partials("sm_90a", "swapab", "rs", "unicast")
    assert not contract.pushes_partials("sm_90a", "tile", "none", None)
