import pickle

import pytest

from codegen.spec import ARCHS, TPS, SpecError, Variant, deployment_matrix


@pytest.mark.parametrize("tp", TPS)
def test_name_round_trip_whole_matrix(tp):
    variants = deployment_matrix(tp, ARCHS)
    # tile, per arch: 2 modes x 2 transports x 3 bn (128, 224, 256) x 2 cg = 24 collective + 6
    # plain GEMMs (sm_90a: + 16 collective and + 4 plain, bn 160 / 192 x 2 cg); swapab: 2 modes x 2 transports x 5 token tiles x cta groups (sm_90a 2 and 6,
    # sm_100a 1) collective + token tiles x cta groups plain (sm_90a: also 160 for every mode,
    # 80/96/112/144/192/208/224 for mode none, and cta_group 3 at 8 token tiles, mode none;
    # sm_100a 5); splitk (both archs): 4 token tiles x 2 cluster sizes, 2 modes x 2 transports
    # collective + the same plain (sm_90a mode none: also 160 and 192); splitkw (sm_90a mode
    # none): 3 token tiles x 2 cluster sizes; swapabx (sm_90a mode none): 7 token tiles x 2
    # cluster sizes; streamk (sm_90a mode none): 256 x cta_group 1 / 2 / 4, 192 x 1 / 3
    assert len(variants) == (2 * (24 + 6) + 16 + 4 + (40 + 8 + 26 + 8) + (20 + 5)
                             + 2 * (4 * 8 + 8) + 2 * 2 + 3 * 2 + 7 * 2 + 5)
    assert len({v.name for v in variants}) == len(variants)
    for v in variants:
        assert Variant.parse(v.name) == v
        assert Variant.from_dict(v.to_dict()) == v
        assert pickle.loads(pickle.dumps(v)) == v
        assert hash(v) == hash(Variant.parse(v.name))


def test_canonical_names():
    assert Variant("sm_90a", "ar", "unicast", 128, 1, 8).name == "gemm_ar_unicast_sm90a_bn128_cg1_tp8_bf16"
    assert Variant("sm_100a", "rs", "multicast", 256, 2, 4).name == "gemm_rs_multicast_sm100a_bn256_cg2_tp4_bf16"
    assert Variant("sm_90a", "none", None, 128, 1, None).name == "gemm_none_sm90a_bn128_cg1_bf16"
    assert Variant("sm_90a", "none", None, 128, 1, None).template_name == "sm90_gemm.py.j2"
    assert Variant("sm_100a", "none", None, 128, 1, None).template_name == "sm100_gemm.py.j2"
    sw = Variant("sm_90a", "ar", "unicast", 16, 1, 2, schedule="swapab")
    assert sw.name == "gemm_ar_unicast_sm90a_swapab_bn16_cg1_tp2_bf16"
    assert sw.template_name == "sm90_swapab.py.j2" and Variant.parse(sw.name) == sw
    sw100 = Variant("sm_100a", "rs", "multicast", 256, 1, 8, schedule="swapab")
    assert sw100.name == "gemm_rs_multicast_sm100a_swapab_bn256_cg1_tp8_bf16"
    assert sw100.template_name == "sm100_swapab.py.j2" and Variant.parse(sw100.name) == sw100
    sx = Variant("sm_90a", "none", None, 160, 4, None, schedule="swapabx")
    assert sx.name == "gemm_none_sm90a_swapabx_bn160_cg4_bf16"
    assert sx.template_name == "sm90_swapab.py.j2" and Variant.parse(sx.name) == sx
    with pytest.raises(SpecError, match="bn=16"):
        Variant("sm_90a", "none", None, 16, 2, None, schedule="swapabx")
    with pytest.raises(SpecError, match="cta_group=1"):
        Variant("sm_90a", "none", None, 128, 1, None, schedule="swapabx")
    assert Variant.from_dict({k: v for k, v in Variant("sm_90a", "none", None, 128, 1, None)
                              .to_dict().items() if k != "schedule"}).schedule == "tile"


@pytest.mark.parametrize("kwargs, words", [
    (dict(arch="sm_100a", schedule="swapab", bn=16, cta_group=2), ["cta_group=2"]),
    (dict(arch="sm_100a", schedule="swapab", bn=512, cta_group=1), ["bn=512", "16, 32, 64, 128, 256"]),
    (dict(arch="sm_90a", schedule="swapab", bn=16, cta_group=4), ["cta_group=4", "1, 2"]),
    (dict(arch="sm_90a", schedule="swapab", bn=48, cta_group=1), ["bn=48", "16, 32, 64, 128, 160, 256"]),
    (dict(arch="sm_90a", schedule="tile", bn=64, cta_group=1), ["bn=64", "128, 160, 192, 224, 256"]),
    (dict(arch="sm_100a", schedule="splitk", bn=128, cta_group=1), ["cta_group=1", "2, 4"]),
    (dict(arch="sm_90a", schedule="splitk", bn=128, cta_group=1), ["cta_group=1", "2, 4"]),
    (dict(arch="sm_90a", schedule="splitk", bn=160, cta_group=2), ["bn=160", "16, 32, 64, 128"]),
    (dict(arch="sm_90a", schedule="swapabx", bn=128, cta_group=2), ["swapabx", "mode 'none' only"]),
    (dict(arch="sm_100a", schedule="swapabx", bn=128, cta_group=2), ["swapabx", "sm_90a"]),
])
def test_schedule_axis_rejects(kwargs, words):
    with pytest.raises(SpecError) as ei:
        Variant(mode="ar", transport="unicast", tp=2, **kwargs)
    assert all(w in str(ei.value) for w in words), str(ei.value)


def test_matrix_none_once_and_sorted_stably():
    for archs, tiles, swapab_cgs, token_tiles, cg3, splitk, splitkw, swapabx, streamk in (
            (["sm_90a"], 10, 2, 13, 8, 12, 3 * 2, 14, 5), (["sm_100a"], 6, 1, 5, 0, 8, 0, 0, 0)):
        m = deployment_matrix([4, 8], archs)
        nones = [v for v in m if v.mode == "none"]
        # once per (schedule, bn, cg), not per tp/transport (cg3: the 192-row W tile, sm_90a)
        # (tiles: 3 widths x 2 cta groups; sm_90a also 160 / 192)
        assert len(nones) == (tiles + token_tiles * swapab_cgs + cg3 + splitk + splitkw
                              + swapabx + streamk)
        assert m == deployment_matrix([8, 4, 8], archs)
        assert m == sorted(m, key=Variant.sort_key)
        assert deployment_matrix(8, archs, modes=["none"]) == nones
    both = deployment_matrix([4, 8], ["sm_100a", "sm_90a"])
    assert both == sorted(both, key=Variant.sort_key)
    assert len(both) == len(m) + len(deployment_matrix([4, 8], ["sm_90a"]))


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(tp=3), ["tp=3", "2, 4, 8, 16"]),
        (dict(tp=32), ["tp=32", "2, 4, 8, 16"]),
        (dict(bn=64), ["bn=64", "128, 160, 192, 224, 256"]),
        (dict(bn=160, arch="sm_100a"), ["bn=160", "128, 224, 256"]),
        (dict(arch="sm_80"), ["arch='sm_80'", "sm_90a, sm_100a"]),
        (dict(mode="foo"), ["mode='foo'", "rs, ar, none"]),
        (dict(transport="nvls"), ["transport='nvls'", "multicast, unicast"]),
        (dict(cta_group=4), ["cta_group=4", "1, 2"]),
        (dict(dtype="fp8"), ["dtype='fp8'", "bf16"]),
        (dict(tp=None), ["needs tp"]),
        (dict(tp="8"), ["tp='8' must be an int"]),
    ],
)
def test_invalid_specs_rejected_with_clear_message(kwargs, words):
    base = dict(arch="sm_90a", mode="ar", transport="unicast", bn=128, cta_group=1, tp=8)
    base.update(kwargs)
    with pytest.raises(SpecError) as e:
        Variant(**base)
    for w in words:
        assert w in str(e.value)
    assert isinstance(e.value, ValueError)


def test_none_mode_rejects_transport_and_tp():
    with pytest.raises(SpecError, match="plain GEMM"):
        Variant("sm_90a", "none", "unicast", 128, 1, None)
    with pytest.raises(SpecError, match="plain GEMM"):
        Variant("sm_90a", "none", None, 128, 1, 8)


@pytest.mark.parametrize(
    "name",
    [
        "",
        "gemm",
        "gemm_ar_unicast_sm90a_bn128_cg1_tp8",  # no dtype
        "gemm_ar_unicast_sm90a_bn128_cg1_bf16",  # no tp
        "gemm_ar_sm90a_bn128_cg1_tp8_bf16",  # no transport
        "gemm_ar_unicast_sm90_bn128_cg1_tp8_bf16",  # sm90 without a
        "gemm_ar_unicast_sm90a_bn0128_cg1_tp8_bf16",  # non-canonical number
        "gemm_ar_unicast_sm90a_bn128_cg1_tp3_bf16",  # invalid value
        "gemm_ar_unicast_sm80a_bn128_cg1_tp8_bf16",
        "gemm_none_unicast_sm90a_bn128_cg1_bf16",
        "gemm_none_sm90a_bn128_cg1_tp8_bf16",
        "GEMM_AR_UNICAST_SM90A_BN128_CG1_TP8_BF16",
        " gemm_ar_unicast_sm90a_bn128_cg1_tp8_bf16",
        "gemm_ar_unicast_sm90a_bn128_cg1_tp8_bf16.py",
    ],
)
def test_malformed_names_rejected(name):
    with pytest.raises(SpecError) as e:
        Variant.parse(name)
    assert repr(name) in str(e.value) or "=" in str(e.value)


def test_from_dict_rejects_unknown_keys():
    d = Variant("sm_90a", "ar", "unicast", 128, 1, 8).to_dict()
    with pytest.raises(SpecError, match="unknown"):
        Variant.from_dict({**d, "colour": "red"})


def test_contract_doc_names_every_parameter_and_field():
    """docs/KERNEL-CONTRACT.md explains the contract; it must not silently lag behind it."""
    from pathlib import Path

    from codegen import contract

    doc = (Path(__file__).resolve().parent.parent / "docs" / "KERNEL-CONTRACT.md").read_text()
    names = {p.name for p in contract.SCALAR_PARAMS} | {f"tma_{op}" for op in contract.TMA_OPERANDS}
    missing = sorted(n for n in names if f"`{n}`" not in doc)
    assert not missing, f"KERNEL-CONTRACT.md does not explain {missing}"
    for code, what in contract.ERROR_CODES.items():
        assert f"{code} = " in doc, f"error code {code} ({what}) is not in KERNEL-CONTRACT.md"


def test_contract_geometry_and_flag_words():
    from codegen import contract

    mt, nt, tp = contract.m_tiles_max(8205), 7168 // 128, 8
    assert contract.flag_words(8205, 7168, tp) == 16 + 2 * mt * nt * tp + mt * nt * tp
    # every tile flag (one per source rank) and AR flag lies in the area, no two share a word
    words = {contract.tile_flag_word(p, t, n, s, mt, nt, tp)
             for p in (0, 1) for t in range(mt) for n in range(nt) for s in range(tp)}
    ar = {contract.ar_flag_word(t, n, o, mt, nt, tp) for t in range(mt) for n in range(nt) for o in range(tp)}
    assert len(words) == 2 * mt * nt * tp and len(ar) == mt * nt * tp and not words & ar
    assert min(words) == contract.FLAG_TILES and max(ar) == contract.flag_words(8205, 7168, tp) - 1
    assert contract.kind_size("i32x2") == 8 and contract.kind_size("tma_desc") == 128
    with pytest.raises(ValueError):
        contract.kind_size("f16x")


@pytest.mark.parametrize("tp", [2, 4, 8, 16])
@pytest.mark.parametrize("max_M", [1, 200, 256, 257, 1000, 8205, 32768])
def test_push_slots_cover_every_chunk(tp, max_M):
    """A pushed workspace parity is tp slots of push_slot_rows rows: as many bytes as the pulled
    [rows_pad][N], each slot holds any M <= max_M's chunk, and the descriptor table's entries
    [parity * tp + owner] start at owner's workspace, parity half, slot [rank]."""
    from codegen import contract

    rp = contract.rows_pad(max_M)
    slot = contract.push_slot_rows(rp, tp)
    assert slot * tp == rp
    assert all(contract.chunk(M, tp) <= slot for M in range(1, max_M + 1, max(1, max_M // 97)))
    assert contract.chunk(max_M, tp) <= slot
    # slots (guard + data rows) tile each parity of the workspace exactly, without overlap
    G, wr = contract.PUSH_GUARD, contract.workspace_rows(rp, tp)
    assert [contract.push_row(p, s, -G, rp, tp) for p in (0, 1) for s in range(tp)] == \
        [p * wr + s * (G + slot) for p in (0, 1) for s in range(tp)]
    assert contract.push_row(1, tp - 1, slot, rp, tp) == 2 * wr
    N, rank = 7168, tp - 1
    ws = [0x10_0000_0000 * (o + 1) for o in range(tp)]
    specs = contract.push_descriptor_specs(ws, rank, rp, N)
    assert len(specs) == 2 * tp
    for par in (0, 1):
        for o in range(tp):
            assert specs[par * tp + o] == (
                ws[o] + contract.push_row(par, rank, -G, rp, tp) * N * 2, G + slot)
