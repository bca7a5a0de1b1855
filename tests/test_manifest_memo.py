"""load_manifest parses a manifest again only when its bytes changed, and always sees a change
(even an in-place rewrite of the same size at once, which a stat-based memo could miss)."""
import json

from codegen import entry_format

V = "gemm_rs_unicast_sm90a_bn128_cg1_tp2_bf16"


def _doc(written_ns, error):
    return {"format": entry_format.MANIFEST_FORMAT, "written_ns": written_ns, "entries": [],
            "failed": [{"variant": V, "error": error}]}


def test_unchanged_bytes_reuse_the_parse_and_any_change_is_seen(tmp_path, monkeypatch):
    calls = []
    real = entry_format.parse_manifest
    monkeypatch.setattr(entry_format, "parse_manifest",
                        lambda doc, path: calls.append(path) or real(doc, path))
    path = tmp_path / "m.json"
    path.write_text(json.dumps(_doc(10, "error A")))
    first = entry_format.load_manifest(path)
    assert first.outcome(V) == "error A"
    assert entry_format.load_manifest(path) is first and len(calls) == 1
    path.write_text(json.dumps(_doc(11, "error B")))  # same size, rewritten in place at once
    second = entry_format.load_manifest(path)
    assert len(calls) == 2 and second.written_ns == 11 and second.outcome(V) == "error B"


def test_a_manifest_that_became_invalid_is_an_error_not_the_old_parse(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(_doc(10, "error A")))
    entry_format.load_manifest(path)
    path.write_text("{not json")
    try:
        entry_format.load_manifest(path)
    except entry_format.FormatError as e:
        assert "not valid JSON" in str(e)
    else:
        raise AssertionError("a corrupt manifest was served from the memo")
