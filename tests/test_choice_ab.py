"""tools/probes/choice_ab.py's argument handling and rule resolution (CPU only)."""
import argparse
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools" / "probes"))
import choice_ab  # noqa: E402


def test_fixed_choices_and_rules_resolve():
    assert choice_ab.resolve("swapab64c2", 256, 4096, "sm_90a", 132, 512) == ("swapab", 64, 2)
    assert choice_ab.resolve("tile224c1", 256, 7168, "sm_90a", 132, 512) == ("tile", 224, 1)
    # the rules before the wave-fill rule: one 64-row W tile per CTA up to M = 256
    assert choice_ab.resolve("rules", 256, 4096, "sm_90a", 132, 512) == ("swapab", 256, 1)
    assert choice_ab.resolve("rules", 300, 7168, "sm_90a", 132, 512) == ("swapab", 160, 2)
    assert choice_ab.resolve("rules", 1024, 7168, "sm_90a", 132, 512)[0] == "tile"
    assert choice_ab.resolve("fill", 256, 4096, "sm_90a", 132, 512) == ("swapab", 64, 2)
    # where the fill rule does not apply the path is the op's own dispatch
    assert choice_ab.resolve("fill", 1024, 4096, "sm_90a", 132, 512) is None
    assert choice_ab.label(None) == "dispatch"
    assert choice_ab.label(("swapab", 64, 2)) == "swapab64c2"


def test_bad_rules_and_shapes_are_refused_before_any_gpu_work():
    with pytest.raises(ValueError, match="unknown rule 'swapab64c5'"):
        choice_ab.resolve("swapab64c5", 16, 4096, "sm_90a", 132, 512)
    # cta_group 3 (the 192-row W tile) is a fixed choice; fill-cg12 is the rule without it
    assert choice_ab.resolve("swapab112c3", 425, 5888, "sm_90a", 132, 512) == ("swapab", 112, 3)
    assert choice_ab.resolve("fill", 425, 5888, "sm_90a", 132, 512) == ("swapab", 112, 3)
    assert choice_ab.resolve("fill-cg12", 425, 5888, "sm_90a", 132, 512) == ("swapab", 96, 2)
    with pytest.raises(argparse.ArgumentTypeError, match="not N:K"):
        choice_ab.shapes("4096x2048")
    assert choice_ab.shapes("4096:2048,8192:1024") == [(4096, 2048), (8192, 1024)]
    with pytest.raises(ValueError, match="unknown rule"):
        choice_ab.main(["--shapes", "4096:2048", "--ms", "16", "--rules", "fill,nope"])


def test_cands_expands_to_the_tuning_sweep_candidates():
    from codegen.runtime.tuning import candidates

    got = choice_ab.expand(["fill", "cands"], 384, 7168, "sm_90a", 132, 512)
    assert got["fill"] == ("swapab", 192, 2)
    cands = candidates(384, 7168, "sm_90a", "none")
    assert all(got[choice_ab.label(c)] == c for c in cands)
    assert len(got) == len(cands) + 1


def test_fill_without_some_token_tiles():
    assert choice_ab.resolve("fill", 320, 4096, "sm_90a", 132, 512) == ("swapab", 80, 2)
    # without them: 32 W tiles of 128 rows x 3 token tiles of 128 (96 CTAs), or - the model
    # prices it the same and it keeps 1.1x the SMs busy (dispatch.FILL_BUSY_MARGIN) - 22 of 192
    # rows x 5 of 64 (110 CTAs)
    assert choice_ab.resolve("fill-x80.96.112", 320, 4096, "sm_90a", 132, 512) == ("swapab", 64, 3)


def test_fillk_rules_are_the_ops_rule_with_and_without_this_sessions_clauses():
    slots = {2: 66, 4: 30}
    args = (336, 1152, "sm_90a", 132, 512, 12352, slots)
    assert choice_ab.resolve("fillk", *args) == ("splitk", 128, 2)      # the spread clause
    assert choice_ab.resolve("fillk-nospread", *args) == ("swapab", 64, 2)
    args = (118, 9728, "sm_90a", 132, 512, 8320, slots)
    assert choice_ab.resolve("fillk", *args) == ("swapab", 64, 3)       # the tie-break
    assert choice_ab.resolve("fillk-first", *args) == ("swapab", 128, 2)
    # the eleventh session's tile widths 160 / 192 (mode none, sm_90a) and the rule without them
    args = (512, 5120, "sm_90a", 132, 512, 4096, slots)
    assert choice_ab.resolve("fillk", *args) == ("tile", 160, 2)
    assert choice_ab.resolve("fillk-bns", *args) == ("swapab", 192, 2)
    # `rules` past the decode rows: choose_bn over BNS (before the widths)
    assert choice_ab.resolve("rules", 1024, 5120, "sm_90a", 132, 512) == ("tile", 128, 2)


def test_fused_probe_choices():
    import fused_choice_ab

    assert fused_choice_ab.parse_choice("default") == {}
    assert fused_choice_ab.parse_choice("swapab64c2") == dict(schedule="swapab", bn=64, cta_group=2)
    with pytest.raises(ValueError, match="unknown choice"):
        fused_choice_ab.parse_choice("wide64")
    # a typo fails before anything touches the GPU
    with pytest.raises(ValueError, match="unknown choice"):
        fused_choice_ab.main(["--shapes", "2048:4096", "--ms", "16", "--choices", "default,x"])
    with pytest.raises(SystemExit):
        fused_choice_ab.main(["--shapes", "2048", "--ms", "16"])


def test_op_rules_set_back_this_sessions_dispatch():
    """`tilecg2` / `fill17` are the op's choice with the eighteenth session's tile cta_group rule
    / unaligned-row fill model set back (the probe holds them out against `dispatch`)."""
    from codegen.runtime import GemmRsAr, dispatch

    op = GemmRsAr(1024, 5712, 4096, "none", arch="sm_90a", sm_budget=132)
    assert op.choice(640) == ("tile", 224, 1)
    assert choice_ab.earlier_choice("tilecg2", op.choice, 640) == ("tile", 160, 2)
    op = GemmRsAr(512, 7168, 2360, "none", arch="sm_90a", sm_budget=132)
    assert op.choice(160) == ("tile", 128, 2)
    assert choice_ab.earlier_choice("fill17", op.choice, 160) == ("swapab", 80, 2)
    assert dispatch.rows_aligned(4096) and not dispatch.rows_aligned(2360)   # restored
    assert dispatch.TILE_CG1_PRICE < float("inf")
