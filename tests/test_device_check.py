"""tools/device_check.sh without a GPU: the steps it would run (--dry-run) and its refusals."""
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "tools" / "device_check.sh"


def _run(*args):
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=30)


def test_one_gpu_runs_only_the_single_gpu_steps(tmp_path):
    r = _run("--dry-run", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    steps = [line.split(":")[0] for line in r.stdout.splitlines()]
    assert steps == ["gpu_tests", "fuzz_gpu"]


def test_two_gpus_add_the_real_rank_steps_with_torchrun(tmp_path):
    r = _run("--gpus", "2", "--fuzz-s", "30", "--dry-run", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    lines = dict(line.split(": ", 1) for line in r.stdout.splitlines())
    assert list(lines) == ["gpu_tests", "fuzz_gpu", "correctness", "correctness_fuzz", "tp_linear",
                           "llama"]
    for name in ("correctness", "correctness_fuzz", "tp_linear", "llama"):
        assert lines[name].startswith("torchrun --nproc-per-node 2 ")
    assert "--budget-s 30" in lines["fuzz_gpu"] and "--fuzz-budget-s 30" in lines["correctness_fuzz"]


def test_bad_arguments_are_refused_before_anything_runs(tmp_path):
    for args in (["--gpus", "0"], ["--gpus", "two"], ["--fuzz-s", "1.5"], ["--bogus"]):
        r = _run(*args, "--out", str(tmp_path / "x"))
        assert r.returncode == 64 and "device_check.sh:" in r.stderr, (args, r.stderr)
        assert not (tmp_path / "x").exists()
