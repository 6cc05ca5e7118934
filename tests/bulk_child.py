"""A stand-in process for tests/test_bulk.py, sharing a bulk region with its parent. It keeps a descriptor of
the region (the real processes close theirs before any candidate code runs) to shrink it under the parent.
Requests are HeldOutput messages; `case` says what to do:
0: reply with every tensor doubled; 1: shrink the region, then send a reference past its end;
2: reply Symbols describing the tensors that arrived (dtype, sum, whether they view the region in place);
3: reply with a new tensor of `output` float32 ones (benchmarks/bulk_transfer.py)."""

import ctypes
import io
import os
import sys

import torch

from kernelbenchx.evaluator import bulk
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.process import Channel

kept = os.dup(int(os.environ[bulk.ENV].split(":")[0])) if bulk.ENV in os.environ else -1
channel = Channel(int(sys.argv[1]))
start = ctypes.addressof(ctypes.c_char.from_buffer(channel.region.mapping)) if channel.region else 0


def in_region(t: torch.Tensor) -> bool:
    return channel.region is not None and start <= t.data_ptr() < start + channel.region.size


for request in channel.requests():
    if request.case == 0:
        channel.reply(m.HeldOutput(0, tuple(t * 2 for t in request.output)))
    elif request.case == 1:
        os.ftruncate(kept, 4096)
        forged = {"__kbx__": "HeldOutput", "case": 1, "output": {bulk.KEY: (0, "torch.float32", (1 << 20,))}}
        buf = io.BytesIO()
        torch.save(forged, buf)
        channel.out.write(m.HEADER.pack(len(buf.getvalue())) + buf.getvalue())
    elif request.case == 3:
        channel.reply(m.HeldOutput(3, torch.ones(request.output)))
    else:
        channel.reply(m.Symbols(tuple(f"{t.dtype} {float(t.double().sum()):.6e} {in_region(t)}"
                                      for t in request.output)))
