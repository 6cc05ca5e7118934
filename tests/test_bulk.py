"""Large tensors through a shared region instead of the pipe (evaluator/bulk.py): the same messages arrive,
a forged or out-of-range reference is a protocol error in the reader, and real processes use the region."""

import mmap
import os

import pytest
import torch

from kernelbenchx.evaluator import bulk
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.isolation import TRUSTED
from kernelbenchx.evaluator.process import Child, ChildFailed, Limits

MB = 1 << 20


def big_tensors() -> tuple:
    return (torch.randn(MB // 2, dtype=torch.float32), torch.randn(MB, dtype=torch.bfloat16),
            torch.rand(MB) > 0.5, torch.randn(MB // 8, 2, dtype=torch.complex64),
            torch.randn(MB).to(torch.float8_e4m3fn), torch.randint(-9, 9, (512, 512), dtype=torch.int64))


def other_side(region: bulk.Region) -> bulk.Region:
    """The child's side of a region made in this process (mapped, as bulk.from_env maps it)."""
    return bulk.Region(-1, region.size, region.direction, mmap.mmap(region.fd, region.size))


@pytest.mark.parametrize("direction", [bulk.REPLIES, bulk.REQUESTS])
def test_large_tensors_cross_in_the_region_and_arrive_equal(direction):
    region = bulk.create(64 * MB, direction)
    writer, reader = (other_side(region), region) if direction == bulk.REPLIES else (region, other_side(region))
    sent = big_tensors()
    small, strided = torch.arange(10), torch.randn(MB, 2)[:, 0]
    frame = m.encode(m.HeldOutput(3, (sent, {"small": small}, 2.5)), writer)
    assert len(frame) < MB  # 11 MB of tensors, as references
    got = m.decode(frame[m.HEADER.size:], reader).output
    assert got[2] == 2.5 and torch.equal(got[1]["small"], small)
    for a, b in zip(sent, got[0]):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert torch.equal(a.view(torch.uint8), b.view(torch.uint8))
    frame = m.encode(m.HeldOutput(3, strided), writer)
    assert len(frame) > 8 * MB  # not contiguous: in the frame, with its storage
    assert torch.equal(m.decode(frame[m.HEADER.size:], reader).output, strided)


def test_the_parent_copies_a_reply_out_so_later_writes_do_not_change_it():
    region = bulk.create(16 * MB, bulk.REPLIES)
    child = other_side(region)
    sent = torch.ones(MB)
    got = m.decode(m.encode(m.HeldOutput(0, sent), child)[m.HEADER.size:], region).output
    torch.frombuffer(child.mapping, dtype=torch.float32, count=MB).fill_(7.0)  # the child writes on
    assert torch.equal(got, sent)


def test_tensors_that_do_not_fit_stay_in_the_frame():
    region = bulk.create(3 * MB, bulk.REQUESTS)
    sent = (torch.randn(MB // 2), torch.randn(MB // 2))  # 2 MB each: the second does not fit
    frame = m.encode(m.HeldOutput(0, sent), region)
    assert 2 * MB < len(frame) < 3 * MB
    got = m.decode(frame[m.HEADER.size:], other_side(region)).output
    assert all(torch.equal(a, b) for a, b in zip(sent, got))


@pytest.mark.parametrize("ref, complaint", [
    ((0, "torch.float32", (4 * MB,)), "does not lie in a region"),
    ((-64, "torch.float32", (8,)), "does not lie in a region"),
    ((1, "torch.float32", (8,)), "does not lie in a region"),  # misaligned
    ((0, "torch.float32", (-1, 8)), "malformed shape"),
    ((0, "torch.float32", (True, 8)), "malformed shape"),
    ((0, "float32", (8,)), "unknown dtype"),
    ((0, "torch.float32"), "malformed reference"),
    ("0", "malformed reference"),
])
def test_a_reference_outside_the_region_is_a_protocol_error(ref, complaint):
    import io

    region = bulk.create(MB, bulk.REPLIES)
    buf = io.BytesIO()
    torch.save({"__kbx__": "HeldOutput", "case": 0, "output": {bulk.KEY: ref}}, buf)
    with pytest.raises(m.ProtocolError, match=complaint):
        m.decode(buf.getvalue(), region)
    with pytest.raises(m.ProtocolError, match="no region"):
        m.decode(buf.getvalue())


def test_references_of_one_message_may_not_overlap():
    """Otherwise a forged reply could name the same gigabytes many times and have the parent copy each."""
    import io

    region = bulk.create(4 * MB, bulk.REPLIES)
    buf = io.BytesIO()
    same = {bulk.KEY: (0, "torch.float32", (MB,))}
    inside = {bulk.KEY: (64, "torch.uint8", (128,))}
    apart = ({bulk.KEY: (0, "torch.float32", (MB // 2,))}, {bulk.KEY: (2 * MB, "torch.uint8", (MB,))})
    for output, ok in (((same, same), False), ((same, inside), False), ((inside, same), False), (apart, True)):
        buf = io.BytesIO()
        torch.save({"__kbx__": "HeldOutput", "case": 0, "output": output}, buf)
        if ok:
            assert [t.numel() for t in m.decode(buf.getvalue(), region).output] == [MB // 2, MB]
        else:
            with pytest.raises(m.ProtocolError, match="overlaps"):
                m.decode(buf.getvalue(), region)


def test_a_candidate_process_replies_through_its_region_and_a_shrunk_region_fails_cleanly():
    """A real child process: its large reply tensors land in the region (the parent reads them there), and a
    region truncated under the parent makes a clean protocol error, not a SIGBUS in the parent."""
    sent = (torch.arange(MB, dtype=torch.float32), torch.randn(300_000, dtype=torch.float64))
    with Child("tests.bulk_child", Limits(wall_s=60), TRUSTED, bulk_region=(bulk.REPLIES, 32 * MB)) as child:
        got = child.call(m.HeldOutput(0, sent), timeout=30).output
        assert all(torch.equal(a * 2, b) for a, b in zip(sent, got))
        first = torch.frombuffer(bytearray(os.pread(child.region.fd, 16, 0)), dtype=torch.float32)
        assert torch.equal(first, sent[0][:4] * 2)  # written there by the child
        with pytest.raises(ChildFailed, match="region ends at 4096"):
            child.call(m.HeldOutput(1, ()), timeout=30)


def test_a_trusted_process_reads_its_requests_in_place():
    sent = (torch.linspace(0, 1, MB), torch.ones(MB, dtype=torch.float16), torch.ones(10))
    with Child("tests.bulk_child", Limits(wall_s=60), TRUSTED, bulk_region=(bulk.REQUESTS, 32 * MB)) as child:
        seen = child.call(m.HeldOutput(2, sent), timeout=30).changed  # (a Symbols message as a list of names)
        assert child.region.mapping[:8] == sent[0][:2].numpy().tobytes()
    want = [f"{t.dtype} {float(t.double().sum()):.6e}" for t in sent]
    assert list(seen) == [f"{want[0]} True", f"{want[1]} True", f"{want[2]} False"]  # small: in the frame


def test_a_judge_server_judges_an_output_passed_through_its_region():
    """The judge of perf-size outputs (a real trusted server on the CPU) gets them through its region."""
    from kernelbenchx.dataset.cases import run_reference
    from kernelbenchx.dataset.registry import get_task
    from kernelbenchx.evaluator.measure import perf_case
    from kernelbenchx.evaluator.parent.references import TrustedServer

    task = get_task("Math/bitwise_and_binomial")
    output = run_reference(task, perf_case.build_case(task, 1, 7, "cpu")[1])  # 16 MB
    server = TrustedServer("cpu", bulk_region=(bulk.REQUESTS, 64 * MB))
    try:
        assert server.call(m.PerfCheck(task.id, 1, 7, output), timeout=300).reason is None
        assert server.child.region.mapping[:64] == output.reshape(-1)[:16].numpy().tobytes()
        assert server.call(m.PerfCheck(task.id, 1, 7, torch.zeros_like(output)), timeout=300).reason
    finally:
        server.close()
