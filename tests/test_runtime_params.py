"""Parameter packing by name from a synthetic meta.json ABI (CPU only)."""
import ctypes
import struct

import pytest

from codegen.runtime.errors import InputError
from codegen.runtime.params import pack_params, parse_abi

ABI = [
    {"name": "tma_a", "kind": "tma_desc", "size": 128, "align": 64},
    {"name": "tma_a_shape", "kind": "i32", "size": 4, "align": 4},
    {"name": "tma_b", "kind": "tma_desc", "size": 128, "align": 64},
    {"name": "m", "kind": "u32", "size": 4, "align": 4},
    {"name": "out_ptr", "kind": "u64", "size": 8, "align": 8},
    {"name": "rank", "kind": "u32", "size": 4, "align": 4},
    {"name": "timeout_ns", "kind": "u64", "size": 8, "align": 8},
]
VALUES = {
    "tma_a": bytes(range(128)), "tma_a_shape": 1000, "tma_b": bytes(range(128, 256)),
    "m": 1000, "out_ptr": 0x7F00_1234_5678, "rank": 3, "timeout_ns": 200_000_000,
    "unused_name": 5,  # names the ABI does not list are ignored
}


def test_offsets_follow_alignment():
    p = pack_params(parse_abi(ABI), VALUES)
    # tma_a 0..128, shape 128, tma_b aligned to 192, m 320, out_ptr 328, rank 336, timeout 344
    assert p.offsets == [0, 128, 192, 320, 328, 336, 344]
    assert p.size == 352
    assert p.base % 64 == 0


def test_bytes_at_offsets():
    p = pack_params(parse_abi(ABI), VALUES)
    b = p.bytes()
    assert b[0:128] == VALUES["tma_a"]
    assert struct.unpack_from("<i", b, 128)[0] == 1000
    assert b[192:320] == VALUES["tma_b"]
    assert struct.unpack_from("<I", b, 320)[0] == 1000
    assert struct.unpack_from("<Q", b, 328)[0] == 0x7F00_1234_5678
    assert struct.unpack_from("<I", b, 336)[0] == 3
    assert struct.unpack_from("<Q", b, 344)[0] == 200_000_000


def test_void_pointer_array_points_at_each_param():
    p = pack_params(parse_abi(ABI), VALUES)
    ptrs = (ctypes.c_void_p * len(ABI)).from_address(p.address)
    assert [ptrs[i] - p.base for i in range(len(ABI))] == p.offsets
    assert ctypes.string_at(ptrs[4], 8) == struct.pack("<Q", VALUES["out_ptr"])


def test_missing_name_is_named():
    vals = dict(VALUES)
    del vals["out_ptr"]
    with pytest.raises(InputError, match="out_ptr"):
        pack_params(parse_abi(ABI), vals)


def test_wrong_descriptor_size():
    vals = dict(VALUES, tma_b=b"\0" * 64)
    with pytest.raises(InputError, match="tma_b.*128 bytes"):
        pack_params(parse_abi(ABI), vals)


def test_out_of_range_scalar():
    with pytest.raises(InputError, match="rank"):
        pack_params(parse_abi(ABI), dict(VALUES, rank=-1))


def test_bad_abi_rejected():
    with pytest.raises(ValueError, match="size"):
        parse_abi([{"name": "m", "kind": "u32", "size": 8, "align": 4}])
    with pytest.raises(ValueError, match="unknown kind"):
        parse_abi([{"name": "m", "kind": "f16x", "size": 2, "align": 2}])
