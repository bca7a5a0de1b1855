"""Parse kernel entry signatures out of PTX: the parameter ABI a loader must pack."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_SIZES = {
    "u8": 1, "s8": 1, "b8": 1,
    "u16": 2, "s16": 2, "b16": 2, "f16": 2, "bf16": 2,
    "u32": 4, "s32": 4, "b32": 4, "f32": 4,
    "u64": 8, "s64": 8, "b64": 8, "f64": 8,
}

_ENTRY_RE = re.compile(
    r"^[ \t]*(?:\.(?:visible|weak|extern)[ \t]+)*\.entry[ \t]+([A-Za-z_$%][\w$]*)[ \t]*\((.*?)\)"
    r"(?P<directives>(?:\s*\.(?:reqntid|maxntid|minnctapersm|maxnreg|explicitcluster|reqnctapercluster"
    r"|maxclusterrank|blocksareclusters|noreturn|pragma)[^\n{]*)*)",
    re.MULTILINE | re.DOTALL,
)
_PARAM_RE = re.compile(
    r"^\.param"
    r"(?P<quals>(?:\s+\.(?:ptr|global|shared|const|local|align\s+\d+))*)"
    r"\s+\.(?P<type>[a-z]+\d+)"
    r"(?P<quals2>(?:\s+\.(?:ptr|global|shared|const|local|align\s+\d+))*)"
    r"\s+(?P<name>[A-Za-z_$%][\w$]*)"
    r"(?:\s*\[\s*(?P<count>\d+)\s*\])?$"
)
_ALIGN_RE = re.compile(r"\.align\s+(\d+)")
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


class PtxParseError(ValueError):
    """A PTX entry signature this parser does not understand (the message quotes it)."""


@dataclass(frozen=True)
class Param:
    index: int
    name: str
    ptx_type: str  # without the dot: "u64", "b8", ...
    size: int  # bytes (element size x count for arrays)
    align: int

    def to_dict(self) -> dict:
        return {"index": self.index, "name": self.name, "ptx_type": self.ptx_type,
                "size": self.size, "align": self.align}


@dataclass(frozen=True)
class PtxEntry:
    name: str
    params: list[Param]
    reqntid: tuple[int, ...] | None = None
    directives: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"name": self.name, "params": [p.to_dict() for p in self.params],
                "reqntid": list(self.reqntid) if self.reqntid else None,
                "directives": dict(self.directives)}


def _parse_param(index: int, text: str) -> Param:
    text = " ".join(text.split())
    m = _PARAM_RE.match(text)
    if m is None:
        raise PtxParseError(f"cannot parse PTX parameter {text!r}")
    ptx_type = m.group("type")
    if ptx_type not in _SIZES:
        raise PtxParseError(f"unknown PTX parameter type .{ptx_type} in {text!r}")
    elem = _SIZES[ptx_type]
    count = int(m.group("count")) if m.group("count") else 1
    # A leading `.align N` aligns the parameter itself; one after `.ptr` describes the pointee.
    lead = _ALIGN_RE.findall(m.group("quals") or "")
    align = int(lead[0]) if lead else elem
    return Param(index=index, name=m.group("name"), ptx_type=ptx_type, size=elem * count, align=align)


def _parse_directives(text: str) -> tuple[tuple[int, ...] | None, dict[str, str]]:
    directives: dict[str, str] = {}
    for m in re.finditer(r"\.(\w+)([^.\n{]*)", text):
        directives[m.group(1)] = " ".join(m.group(2).split())
    reqntid = None
    if "reqntid" in directives:
        reqntid = tuple(int(x) for x in directives["reqntid"].replace(" ", "").split(",") if x)
    return reqntid, directives


def parse_entries(ptx: str) -> list[PtxEntry]:
    """Every ``.entry`` of ``ptx`` with its parameters in order (PtxParseError if unreadable)."""
    ptx = _COMMENT_RE.sub("", ptx)
    entries = []
    for m in _ENTRY_RE.finditer(ptx):
        body = m.group(2).strip()
        params = [] if not body else [_parse_param(i, p) for i, p in enumerate(body.split(","))]
        reqntid, directives = _parse_directives(m.group("directives") or "")
        entries.append(PtxEntry(name=m.group(1), params=params, reqntid=reqntid, directives=directives))
    return entries
