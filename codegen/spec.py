"""The variant specification: one hashable, picklable value per generated kernel."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from codegen.contract import (ARCH_NUM, ARCHS, BNS, CTA_GROUPS, DTYPES, MODES, SCHEDULE_ARCHS,
                              SCHEDULES, SWAPAB_ALL_BNS, SWAPAB_BNS, SWAPAB_CG3_BNS, TPS, TRANSPORTS,
                              decode_kernel_exists, schedule_bns, schedule_cta_groups,
                              streamk_kernel_exists)

__all__ = ["ARCHS", "BNS", "CTA_GROUPS", "DTYPES", "MODES", "SCHEDULES", "SWAPAB_ALL_BNS", "SWAPAB_BNS", "TPS",
           "TRANSPORTS", "SpecError", "Variant", "deployment_matrix"]

_TEMPLATES = {("sm_90a", "tile"): "sm90_gemm.py.j2", ("sm_100a", "tile"): "sm100_gemm.py.j2",
              ("sm_90a", "swapab"): "sm90_swapab.py.j2", ("sm_100a", "swapab"): "sm100_swapab.py.j2",
              # the K-split decode kernel is each arch's decode template with a cluster
              ("sm_90a", "splitk"): "sm90_swapab.py.j2", ("sm_100a", "splitk"): "sm100_swapab.py.j2",
              # the wide decode kernel with a cluster (mode none)
              ("sm_90a", "splitkw"): "sm90_swapab.py.j2",
              # the cta_group 1 decode kernel in clusters sharing x (mode none)
              ("sm_90a", "swapabx"): "sm90_swapab.py.j2",
              # the tile kernel with the last waves' k-tiles spread evenly (mode none)
              ("sm_90a", "streamk"): "sm90_gemm.py.j2"}

_NAME_RE = re.compile(
    r"gemm_(?P<mode>[a-z]+)"
    r"(?:_(?P<transport>[a-z]+))?"
    r"_sm(?P<archnum>\d+)a"
    r"(?:_(?P<schedule>swapabx|swapab|splitkw|splitk|streamk))?"
    r"_bn(?P<bn>\d+)"
    r"_cg(?P<cg>\d+)"
    r"(?:_tp(?P<tp>\d+))?"
    r"_(?P<dtype>[a-z0-9]+)"
)


class SpecError(ValueError):
    """An invalid variant: the message names the bad value and the allowed ones."""


def _check(field: str, value: object, allowed: tuple) -> None:
    if value not in allowed:
        raise SpecError(f"{field}={value!r} is not supported; allowed: {', '.join(map(str, allowed))}")


@dataclass(frozen=True, order=False)
class Variant:
    """One kernel configuration; ``mode='none'`` is the plain GEMM (no transport, no tp).

    `schedule` 'tile' (BN = W rows per tile) or 'swapab' (the decode schedule: BN = the token
    tile, one of SWAPAB_BNS; cta_group 2 = the wide kernel, one CTA per (128-row W tile, token
    tile)) or 'splitk' (the decode schedule with K split over a cluster of cta_group CTAs per
    64-row W tile) or 'splitkw' (mode none: K split over a cluster of cta_group CTAs per
    (128-row W tile, token tile), any M) or 'swapabx' (mode none: the cta_group 1 decode kernel
    in clusters of cta_group CTAs sharing each x tile by multicast) or 'streamk' (mode none: the
    tile kernel with the last waves' k-tiles spread evenly over the CTAs); see
    codegen/contract.py.
    """

    arch: str
    mode: str
    transport: str | None
    bn: int
    cta_group: int
    tp: int | None
    dtype: str = "bf16"
    schedule: str = "tile"

    def __post_init__(self) -> None:
        _check("arch", self.arch, ARCHS)
        _check("mode", self.mode, MODES)
        _check("schedule", self.schedule, SCHEDULES)
        if self.arch not in SCHEDULE_ARCHS[self.schedule]:
            raise SpecError(f"schedule={self.schedule!r} exists for {', '.join(SCHEDULE_ARCHS[self.schedule])} "
                            f"only, not arch={self.arch!r}")
        for field in ("bn", "cta_group", "tp"):
            value = getattr(self, field)
            # bool is an int; a True tp is a bug, not 1.
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise SpecError(f"{field}={value!r} must be an int")
        if self.schedule in ("splitkw", "swapabx", "streamk") and self.mode != "none":
            raise SpecError(f"schedule={self.schedule!r} exists for mode 'none' only, not "
                            f"mode={self.mode!r}")
        _check("bn", self.bn, schedule_bns(self.arch, self.mode, self.schedule))
        _check("cta_group", self.cta_group, schedule_cta_groups(self.arch, self.schedule))
        if self.schedule == "swapab" and not decode_kernel_exists(self.arch, self.mode, self.bn,
                                                                  self.cta_group):
            raise SpecError(f"cta_group={self.cta_group} of the swapab schedule exists for mode "
                            f"none on sm_90a at token tiles {SWAPAB_CG3_BNS} only, not "
                            f"{self.arch} mode={self.mode!r} bn={self.bn}")
        if self.schedule == "streamk" and not streamk_kernel_exists(self.bn, self.cta_group):
            raise SpecError(f"cta_group={self.cta_group} of the streamk schedule does not split "
                            f"bn={self.bn} into 64-row W blocks per CTA; pairs: bn 256 with "
                            f"cta_group 1 / 2 / 4, bn 192 with 1 / 3")
        _check("dtype", self.dtype, DTYPES)
        if self.mode == "none":
            if self.transport is not None or self.tp is not None:
                raise SpecError(
                    f"mode='none' is the plain GEMM: transport and tp must be None, "
                    f"got transport={self.transport!r}, tp={self.tp!r}"
                )
            return
        _check("transport", self.transport, TRANSPORTS)
        if self.tp is None:
            raise SpecError(f"mode={self.mode!r} needs tp; allowed: {', '.join(map(str, TPS))}")
        _check("tp", self.tp, TPS)

    @property
    def name(self) -> str:
        """Canonical name, e.g. ``gemm_ar_unicast_sm90a_bn128_cg1_tp8_bf16``."""
        arch = self.arch.replace("_", "")
        if self.schedule != "tile":
            arch += f"_{self.schedule}"
        if self.mode == "none":
            return f"gemm_none_{arch}_bn{self.bn}_cg{self.cta_group}_{self.dtype}"
        return (
            f"gemm_{self.mode}_{self.transport}_{arch}_bn{self.bn}"
            f"_cg{self.cta_group}_tp{self.tp}_{self.dtype}"
        )

    @property
    def template_name(self) -> str:
        return _TEMPLATES[(self.arch, self.schedule)]

    @property
    def arch_num(self) -> int:
        return ARCH_NUM[self.arch]

    def __str__(self) -> str:
        return self.name

    @classmethod
    def parse(cls, name: str) -> Variant:
        """Invert :attr:`name` exactly; SpecError on anything that is not a canonical name."""
        m = _NAME_RE.fullmatch(name) if isinstance(name, str) else None
        if m is None:
            raise SpecError(
                f"malformed variant name {name!r}; expected e.g. "
                "gemm_ar_unicast_sm90a_bn128_cg1_tp8_bf16 or gemm_none_sm90a_bn128_cg1_bf16"
            )
        g = m.groupdict()
        variant = cls(
            arch=f"sm_{g['archnum']}a",
            mode=g["mode"],
            transport=g["transport"],
            bn=int(g["bn"]),
            cta_group=int(g["cg"]),
            tp=None if g["tp"] is None else int(g["tp"]),
            dtype=g["dtype"],
            schedule=g["schedule"] or "tile",
        )
        # Rejects non-canonical spellings that the regex lets through (e.g. bn0128).
        if variant.name != name:
            raise SpecError(f"non-canonical variant name {name!r}; canonical: {variant.name!r}")
        return variant

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Variant:
        """Inverse of :meth:`to_dict`; SpecError on missing or unknown keys."""
        fields = {"arch", "mode", "transport", "bn", "cta_group", "tp", "dtype", "schedule"}
        unknown = set(data) - fields
        missing = fields - {"dtype", "schedule"} - set(data)
        if unknown or missing:
            raise SpecError(f"bad variant dict {data!r}: missing {sorted(missing)}, unknown {sorted(unknown)}")
        return cls(**data)

    def sort_key(self) -> tuple:
        return (
            ARCHS.index(self.arch),
            SCHEDULES.index(self.schedule),
            MODES.index(self.mode),
            TRANSPORTS.index(self.transport) if self.transport else -1,
            self.bn,
            self.cta_group,
            self.tp or 0,
            self.dtype,
        )


def deployment_matrix(
    tp: int | Iterable[int],
    archs: Iterable[str] = ARCHS,
    modes: Iterable[str] = MODES,
    transports: Iterable[str] = TRANSPORTS,
    bns: Iterable[int] | None = None,
    cta_groups: Iterable[int] | None = None,
    dtype: str = "bf16",
    schedules: Iterable[str] = SCHEDULES,
) -> list[Variant]:
    """Every variant a deployment at ``tp`` needs; mode none once per (arch, schedule, bn,
    cta_group). `cta_groups` None: each schedule's own (contract.schedule_cta_groups); given:
    the ones of them the schedule has. `bns` None: each schedule's own tile widths (BNS / contract.swapab_bns(arch,
    mode)); given: the ones
    of them the schedule allows. A schedule exists only on its archs (SCHEDULE_ARCHS)."""
    tps = (tp,) if isinstance(tp, int) else tuple(tp)
    archs, modes, transports = tuple(archs), tuple(modes), tuple(transports)
    wanted_cgs = None if cta_groups is None else set(cta_groups)
    wanted_bns = None if bns is None else set(bns)
    out: set[Variant] = set()
    for schedule in schedules:
        for arch in (a for a in archs if a in SCHEDULE_ARCHS[schedule]):
            own_cgs = schedule_cta_groups(arch, schedule)
            for mode in modes:
                own_bns = schedule_bns(arch, mode, schedule)
                for bn in (b for b in own_bns if wanted_bns is None or b in wanted_bns):
                    for cg in (c for c in own_cgs if wanted_cgs is None or c in wanted_cgs):
                        if schedule == "swapab" and not decode_kernel_exists(arch, mode, bn, cg):
                            continue
                        if schedule == "streamk" and not streamk_kernel_exists(bn, cg):
                            continue
                        if mode == "none":
                            out.add(Variant(arch, "none", None, bn, cg, None, dtype, schedule))
                            continue
                        for transport in transports:
                            for t in tps:
                                out.add(Variant(arch, mode, transport, bn, cg, t, dtype, schedule))
    return sorted(out, key=Variant.sort_key)
