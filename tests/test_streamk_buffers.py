"""The streamk kernels' buffers by stream (runtime/streamk_buffers.py) and a launch plan taking
its stream's set (call_plan.CallPlan.bind / launch), on the CPU: which set a stream gets (its own
for the first SETS_MAX streams, a shared one by handle past them, one set per new stream even
from many threads) and that a plan patched with a set passes exactly the bytes of a fresh
packing with that set's pointers. The GPU side (two streams at once, more streams than sets, a
graph of forked streams) is tests/gpu/test_streamk.py."""
import random
import threading

import pytest

from codegen.runtime import streamk_buffers
from codegen.runtime.call_plan import CallPlan
from codegen.runtime.launch_plan import CallTensors
from codegen.runtime.params import pack_params
from codegen.runtime.streamk_buffers import SETS_MAX, SetsByStream
from codegen.spec import deployment_matrix

from test_call_plan import _Fake, _op
from test_runtime_op_params import K, N, _kernel, encoded  # noqa: F401


class _Set:
    def __init__(self, i):
        self.ws_ptr, self.flag_ptr = 0x7000_0000 + i * 0x10_0000, 0x9000_0000 + i * 0x1000


def _sets():
    made = []

    def make():
        made.append(_Set(len(made)))
        return made[-1]
    return SetsByStream(make), made


def test_a_set_per_stream_then_shared_by_handle():
    by, made = _sets()
    handles = [0x5550_0000 + 0x40 * i for i in range(SETS_MAX)]
    own = [by.get(h) for h in handles]
    assert len({id(s) for s in own}) == SETS_MAX and own == made
    assert [by.get(h) for h in reversed(handles)] == own[::-1]    # the same set, every time
    past = [0x6660_0000 + 0x10 * i for i in range(3 * SETS_MAX)]
    shared = [by.get(h) for h in past]
    assert len(made) == SETS_MAX                                   # no set past the cap
    assert {id(s) for s in shared} == {id(s) for s in own}        # spread over every set
    assert [by.get(h) for h in past] == shared                    # by handle, not by order
    assert len(by._by_stream) == SETS_MAX                          # the map does not grow
    assert by.has_own(handles[0]) and not by.has_own(past[0])


def test_one_set_per_new_stream_from_many_threads():
    by, made = _sets()
    got, start = [], threading.Barrier(16)

    def ask():
        start.wait()
        got.append(by.get(0x1234_5000))
    threads = [threading.Thread(target=ask) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 1 and all(s is made[0] for s in got)


def test_a_captured_launch_never_gets_an_eager_set(monkeypatch):
    """The same stream handle (torch's capture stream, which its pool hands out again) gets one
    set for launches captured into a graph and another for eager launches; each kind keeps its
    own SETS_MAX, so no eager stream is ever hashed onto a capture set."""
    import torch

    from codegen.runtime.streamk_buffers import StreamKBuffers

    made = []

    def make():
        made.append(_Set(len(made)))
        return made[-1]
    sk = object.__new__(StreamKBuffers)      # (no device: the sets are stand-ins)
    sk.eager, sk.captured = SetsByStream(make), SetsByStream(make)
    capturing = [False]
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: capturing[0])
    h = 0x7777_0000
    eager = sk.for_launch(h)
    capturing[0] = True
    captured = sk.for_launch(h)
    assert captured is not eager and sk.for_launch(h) is captured
    capture_sets = {id(captured)}
    for i in range(3 * SETS_MAX):
        capture_sets.add(id(sk.for_launch(0x9000_0000 + 0x40 * i)))
    capturing[0] = False
    for i in range(3 * SETS_MAX):
        assert id(sk.for_launch(0x5000_0000 + 0x40 * i)) not in capture_sets
    assert sk.for_launch(h) is eager
    assert len(made) == 2 * SETS_MAX


@pytest.mark.parametrize("variant", [v for v in deployment_matrix([4])
                                     if v.schedule == "streamk"], ids=str)
def test_plan_takes_its_streams_set(encoded, variant):
    """Every streamk variant: a plan bound to one set, then another, then the first again
    (e.g. alternating streams), with new tensors between, packs exactly what a fresh packing
    with that set's pointers would; binding no set leaves the last one, and a plan never bound
    to a set (its pointers null: streamk_buffers.values) refuses to go without one."""
    op, kern, M = _op(variant), _kernel(variant), 333
    rng = random.Random(3)
    addr = lambda: rng.randrange(1, 1 << 40) * 16  # noqa: E731
    x, w, out = _Fake(addr()), _Fake(addr()), _Fake(addr())
    plan = CallPlan(kern, 2 * kern.cluster[0], op._params(0, x, w, out, M, kern),
                    CallTensors(x, w, out, M, N, K), op._descriptors)

    def fresh(st):
        values = op._params(0, x, w, out, M, kern)
        values.update(sk_ws_ptr=st.ws_ptr, sk_flag_ptr=st.flag_ptr)
        return pack_params(kern.specs, values).bytes()

    with pytest.raises(ValueError, match="needs its stream's set"):
        plan.launch(x.ptr, w.ptr, out.ptr, 0)
    sets = [_Set(1), _Set(2)]
    last = None
    for st in (sets[0], sets[1], sets[0], None, sets[1]):
        x, w, out = _Fake(addr()), _Fake(addr()), _Fake(addr())
        plan.bind(x.ptr, w.ptr, out.ptr, sk=st)
        last = st or last
        assert plan.packed_bytes() == fresh(last)


def test_cpu_op_has_no_buffers():
    import torch

    nb = streamk_buffers.of_device(torch.device("cpu"))
    assert nb.values(5) == {"sk_ws_ptr": 0, "sk_flag_ptr": 0, "err_ptr": 0, "timeout_ns": 5}
    assert streamk_buffers.existing(torch.device("cpu")) is None
