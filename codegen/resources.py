"""Per-kernel resource usage of a cubin: registers, stack/local (spill) bytes, static shared memory.

Prefers ``cuobjdump --dump-resource-usage`` (the authority); without it, reads the CUDA ELF
directly, so ``codegen inspect --resources`` works with no CUDA tool installed.
"""

from __future__ import annotations

import re
import struct
import subprocess
import tempfile
from pathlib import Path

from codegen.binutils import find_tool

# .nv.info attribute ids (EIATTR_*) that carry per-kernel values: (u32 symbol index, u32 value).
_EIATTR_FRAME_SIZE = 0x11
_EIATTR_MIN_STACK_SIZE = 0x12
_EIATTR_MAX_STACK_SIZE = 0x23
_EIATTR_REGCOUNT = 0x2F
_EIFMT_NVAL, _EIFMT_BVAL, _EIFMT_HVAL, _EIFMT_SVAL = 1, 2, 3, 4

_FUNC_RE = re.compile(r"^\s*Function\s+(\S+?):\s*$")
_FIELD_RE = re.compile(r"([A-Z_]+(?:\[\d+\])?):(\d+)")


def resources_from_cubin(cubin: bytes, use_tool: bool = True) -> dict:
    """``{"tool": "cuobjdump"|"elf", "kernels": {name: {registers, stack_bytes, local_bytes,
    static_smem_bytes}}}``; ValueError if ``cubin`` is not a CUDA ELF."""
    tool = find_tool("cuobjdump") if use_tool else None
    if tool is not None:
        kernels = _via_cuobjdump(tool, cubin)
        if kernels:
            return {"tool": "cuobjdump", "kernels": kernels}
    return {"tool": "elf", "kernels": _via_elf(cubin)}


def _via_cuobjdump(tool: Path, cubin: bytes) -> dict:
    with tempfile.TemporaryDirectory(prefix="codegen-res-") as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(cubin)
        proc = subprocess.run(
            [str(tool), "--dump-resource-usage", str(path)], capture_output=True, text=True, timeout=60
        )
    if proc.returncode != 0:
        return {}  # fall back to the ELF reader; it raises a clear error on a non-cubin
    kernels: dict[str, dict] = {}
    current = None
    for line in proc.stdout.splitlines():
        m = _FUNC_RE.match(line)
        if m:
            current = m.group(1)
            continue
        if current is not None and "REG:" in line:
            f = dict((k, int(v)) for k, v in _FIELD_RE.findall(line))
            kernels[current] = {
                "registers": f.get("REG", 0),
                "stack_bytes": f.get("STACK", 0),
                "local_bytes": f.get("LOCAL", 0),
                "static_smem_bytes": f.get("SHARED", 0),
            }
            current = None
    return kernels


def _sections(data: bytes) -> tuple[list[tuple], dict[str, tuple]]:
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF (is this a cubin?)")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shoff + shnum * shentsize > len(data):
        raise ValueError("truncated ELF: section headers run past the end of the file")
    # (name, type, flags, addr, offset, size, link, info, align, entsize)
    raw = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = raw[shstrndx][4]

    def name_at(off: int) -> str:
        end = data.index(b"\0", strtab + off)
        return data[strtab + off : end].decode("utf-8", "replace")

    by_name = {name_at(s[0]): s for s in raw}
    return raw, by_name


def _symbol_names(data: bytes, raw: list[tuple], by_name: dict[str, tuple]) -> list[str]:
    symtab = by_name.get(".symtab")
    if symtab is None:
        return []
    strtab = raw[symtab[6]]  # sh_link of .symtab is its string table
    names = []
    for off in range(symtab[4], symtab[4] + symtab[5], 24):
        st_name = struct.unpack_from("<I", data, off)[0]
        start = strtab[4] + st_name
        names.append(data[start : data.index(b"\0", start)].decode("utf-8", "replace"))
    return names


def _nv_info(data: bytes, section: tuple, symbols: list[str]) -> dict[str, dict[int, int]]:
    """Per-symbol ``{attr: value}`` from a .nv.info section's (symbol, value) attributes."""
    out: dict[str, dict[int, int]] = {}
    pos, end = section[4], section[4] + section[5]
    while pos + 2 <= end:
        fmt, attr = data[pos], data[pos + 1]
        if fmt == _EIFMT_SVAL:
            size = struct.unpack_from("<H", data, pos + 2)[0]
            if size == 8 and attr in (
                _EIATTR_FRAME_SIZE, _EIATTR_MIN_STACK_SIZE, _EIATTR_MAX_STACK_SIZE, _EIATTR_REGCOUNT
            ):
                sym, value = struct.unpack_from("<II", data, pos + 4)
                if sym < len(symbols):
                    out.setdefault(symbols[sym], {})[attr] = value
            pos += 4 + size
        elif fmt == _EIFMT_HVAL:
            pos += 4
        elif fmt in (_EIFMT_NVAL, _EIFMT_BVAL):
            pos += 2 if fmt == _EIFMT_NVAL else 3
        else:
            break  # unknown format: stop rather than misread
    return out


def _via_elf(data: bytes) -> dict:
    raw, by_name = _sections(data)
    symbols = _symbol_names(data, raw, by_name)
    info: dict[str, dict[int, int]] = {}
    for name, sec in by_name.items():
        if name == ".nv.info" or name.startswith(".nv.info."):
            for sym, attrs in _nv_info(data, sec, symbols).items():
                info.setdefault(sym, {}).update(attrs)
    kernels = {}
    for name, sec in by_name.items():
        if not name.startswith(".text."):
            continue
        kernel = name[len(".text.") :]
        attrs = info.get(kernel, {})
        # Older cubins keep the register count in sh_info bits 24..31; newer ones in REGCOUNT.
        registers = attrs.get(_EIATTR_REGCOUNT, (sec[7] >> 24) & 0xFF)
        shared = by_name.get(f".nv.shared.{kernel}")
        local = by_name.get(f".nv.local.{kernel}")
        kernels[kernel] = {
            "registers": registers,
            "stack_bytes": max(attrs.get(_EIATTR_FRAME_SIZE, 0), attrs.get(_EIATTR_MAX_STACK_SIZE, 0)),
            "local_bytes": local[5] if local else 0,
            "static_smem_bytes": shared[5] if shared else 0,
        }
    return kernels
