"""stream_order.StreamOrder on real streams (one GPU)."""
import pytest
import torch

from codegen.runtime.stream_order import StreamOrder

pytestmark = pytest.mark.gpu


def test_real_streams_are_ordered():
    """Work enqueued on stream B after before_launch(B) starts only after what stream A had
    enqueued before it (a 50 ms sleep kernel): B's event completes after A's."""
    a, b = torch.cuda.Stream(), torch.cuda.Stream()
    order = StreamOrder()
    with torch.cuda.stream(a):
        order.before_launch(a.cuda_stream)
        torch.cuda._sleep(50_000_000)
        done_a = torch.cuda.Event()
        done_a.record(a)
    with torch.cuda.stream(b):
        order.before_launch(b.cuda_stream)
        done_b = torch.cuda.Event()
        done_b.record(b)
    assert order.waits == 1
    done_b.synchronize()
    assert done_a.query(), "stream B ran ahead of stream A's earlier call"
    torch.cuda.synchronize()


def test_without_the_order_the_second_stream_runs_ahead():
    """The control: the same two streams without before_launch; B finishes while A sleeps
    (so the test above can fail)."""
    a, b = torch.cuda.Stream(), torch.cuda.Stream()
    with torch.cuda.stream(a):
        torch.cuda._sleep(50_000_000)
        done_a = torch.cuda.Event()
        done_a.record(a)
    with torch.cuda.stream(b):
        done_b = torch.cuda.Event()
        done_b.record(b)
    done_b.synchronize()
    assert not done_a.query()
    torch.cuda.synchronize()
