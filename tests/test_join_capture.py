"""GemmRsAr.join during a CUDA-graph capture (CPU: streams and capture status are stand-ins):
it waits only for the rank streams that joined the capture (the ranks called in it). Waiting on
another is a dependency on uncaptured work: on one H200 `op(0, x, w); op.join()` in a capture
(rank 1 not called) raised cudaErrorStreamCaptureIsolation and invalidated the capture
(tools/probes/capture_rank_call.py, thirty-first session, call 7). Outside a capture it waits
for every rank stream, as before."""
import pytest
import torch

import codegen.runtime.op as op_mod
from codegen.runtime import GemmRsAr

from test_runtime_validate import MAX_M, N, CpuGroup


class _RankStream:
    def __init__(self, handle):
        self.cuda_stream = handle


class _Cur:
    def __init__(self):
        self.waited = []

    def wait_stream(self, s):
        self.waited.append(s.cuda_stream)


@pytest.mark.parametrize("capturing,in_capture,expected", [
    (False, set(), [11, 12, 13, 14]),
    (True, {11, 13}, [11, 13]),
    (True, set(), []),
])
def test_join_waits_for_the_rank_streams_of_the_capture(monkeypatch, capturing, in_capture,
                                                         expected):
    group = CpuGroup(tp=4)
    streams = [_RankStream(11 + r) for r in range(4)]
    group.stream = lambda r: streams[r]
    op = GemmRsAr(MAX_M, N, 64, "rs", group, arch="sm_90a")
    cur = _Cur()
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: cur)
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: capturing)
    monkeypatch.setattr(op_mod, "stream_capturing", lambda h: h in in_capture)
    op.join()
    assert cur.waited == expected
