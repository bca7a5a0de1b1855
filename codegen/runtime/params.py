"""Pack kernel parameters by name from a cache entry's ABI (meta.json `abi.params`).

The ABI lists parameters in PTX order with kind/size/align; the caller supplies a dict by name.
Templates may reorder parameters freely; only a name's meaning is fixed (KERNEL-CONTRACT.md).
"""
from __future__ import annotations

import ctypes
import re
import struct
from dataclasses import dataclass

from codegen.contract import SCALAR_KINDS as _SCALARS
from codegen.contract import TMA_DESC_ALIGN as _MAX_ALIGN  # the largest any parameter asks for
from codegen.contract import TMA_DESC_BYTES

from .errors import InputError

# Kinds are the contract's: scalars (struct format, size), `tma_desc`, raw `bytes`, and vector
# kinds "<scalar>x<n>" (e.g. i32x2: the DSL's coordinate tensor of a TMA operand with two
# dynamic dims), which take a sequence of n values.
_VECTOR = re.compile(r"^([iuf](?:8|16|32|64))x(\d+)$")


@dataclass(frozen=True)
class ParamSpec:
    name: str
    kind: str
    size: int
    align: int


def parse_abi(abi_params: list[dict]) -> list[ParamSpec]:
    """Turn meta.json `abi.params` into ParamSpecs, rejecting sizes that contradict the kind."""
    specs = []
    offset = 0
    for p in abi_params:
        kind, size = p["kind"], int(p["size"])
        align = int(p.get("align", size if size in (1, 2, 4, 8) else 8))
        vec = _VECTOR.match(kind)
        if vec and vec.group(1) not in _SCALARS:
            vec = None
        if vec and vec.group(1) in _SCALARS and _SCALARS[vec.group(1)][1] * int(vec.group(2)) != size:
            raise ValueError(f"ABI param {p['name']!r}: kind {kind} has size "
                             f"{_SCALARS[vec.group(1)][1] * int(vec.group(2))}, meta says {size}; "
                             f"rebuild the cache entry")
        if kind in _SCALARS and _SCALARS[kind][1] != size:
            raise ValueError(f"ABI param {p['name']!r}: kind {kind} has size {_SCALARS[kind][1]}, "
                             f"meta says {size}; rebuild the cache entry")
        if kind == "tma_desc" and size != TMA_DESC_BYTES:
            raise ValueError(f"ABI param {p['name']!r}: tma_desc must be {TMA_DESC_BYTES} bytes, "
                             f"meta says {size}")
        if kind not in _SCALARS and kind not in ("tma_desc", "bytes") and not vec:
            raise ValueError(f"ABI param {p['name']!r}: unknown kind {kind!r}")
        offset = -(-offset // align) * align
        if "offset" in p and int(p["offset"]) != offset:
            # the build recorded the PTX layout; packing must reproduce it byte for byte
            raise ValueError(f"ABI param {p['name']!r}: meta offset {p['offset']} but size/align "
                             f"give {offset}; rebuild the cache entry")
        offset += size
        specs.append(ParamSpec(p["name"], kind, size, align))
    return specs


def _encode(spec: ParamSpec, value) -> bytes:
    if spec.kind in _SCALARS:
        fmt, _ = _SCALARS[spec.kind]
        try:
            return struct.pack(fmt, value)
        except struct.error as exc:
            raise InputError(f"kernel param {spec.name!r} ({spec.kind}) = {value!r}: {exc}") from None
    vec = _VECTOR.match(spec.kind)
    if vec:
        fmt, n = _SCALARS[vec.group(1)][0], int(vec.group(2))
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        if len(values) != n:
            raise InputError(f"kernel param {spec.name!r} ({spec.kind}) needs {n} values, "
                             f"got {value!r}")
        try:
            return b"".join(struct.pack(fmt, v) for v in values)
        except struct.error as exc:
            raise InputError(f"kernel param {spec.name!r} ({spec.kind}) = {value!r}: {exc}") from None
    data = bytes(value)
    if len(data) != spec.size:
        raise InputError(f"kernel param {spec.name!r} ({spec.kind}) needs {spec.size} bytes, "
                         f"got {len(data)}")
    return data


class PackedParams:
    """One aligned buffer holding every parameter, plus the `void*[]` the driver reads.

    Keep the object alive until the launch call returns (the driver copies the values then).
    """

    def __init__(self, specs: list[ParamSpec], values: dict):
        missing = [s.name for s in specs if s.name not in values]
        if missing:
            raise InputError(f"kernel param(s) {', '.join(missing)} not supplied "
                             f"(the cache entry's ABI needs them)")
        self.offsets: list[int] = []
        off = 0
        for s in specs:
            off = -(-off // s.align) * s.align
            self.offsets.append(off)
            off += s.size
        self.size = off
        # Over-allocate so the base can be aligned to the largest alignment (the driver does not
        # need it, but then every parameter sits at an address aligned as in the PTX).
        self._raw = ctypes.create_string_buffer(max(off, 1) + _MAX_ALIGN)
        raw_addr = ctypes.addressof(self._raw)
        self.base = -(-raw_addr // _MAX_ALIGN) * _MAX_ALIGN
        for s, o in zip(specs, self.offsets):
            data = _encode(s, values[s.name])
            ctypes.memmove(self.base + o, data, len(data))
        self._offset = {s.name: o for s, o in zip(specs, self.offsets)}
        self._ptrs = (ctypes.c_void_p * max(len(specs), 1))(
            *[self.base + o for o in self.offsets])

    def offset_of(self, name: str) -> int:
        """Byte offset of parameter `name` from :attr:`base` (KeyError if the ABI lacks it)."""
        return self._offset[name]

    @property
    def address(self) -> int:
        """Address of the `void**` array, as cuLaunchKernelEx's kernelParams wants it."""
        return ctypes.addressof(self._ptrs)

    def bytes(self) -> bytes:
        """The packed parameter bytes (for tests and debugging)."""
        return ctypes.string_at(self.base, self.size)


def pack_params(specs: list[ParamSpec], values: dict) -> PackedParams:
    """Pack `values` (name -> int or bytes) in the order and layout of `specs`."""
    return PackedParams(specs, values)


def coord_shape(kind: str, dims: tuple[int, ...]):
    """Value of a TMA coordinate-tensor param (`tma_*_shape`) for its ABI kind.

    The DSL emits one i32 per dynamic dim in shape order: `i32` takes the first dim (the
    contract's "i32 M"), `i32xN` the first N dims (e.g. (M, K) when both are dynamic).
    """
    vec = _VECTOR.match(kind)
    if vec:
        n = int(vec.group(2))
        if n > len(dims):
            raise ValueError(f"coordinate param of kind {kind} wants {n} dims, have {dims}")
        return tuple(dims[:n])
    return dims[0]
