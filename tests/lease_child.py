"""A stand-in candidate process for tests/test_gpu_guard.py: for each request, it gives its GPU lease back,
asks for it again, and replies with what the parent answered (a Symbols message naming it)."""

import sys

from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.process import Channel

channel = Channel(int(sys.argv[1]))
for request in channel.requests():
    channel.reply(m.GpuRelease())
    answer = channel.ask(m.GpuAcquire())
    channel.reply(m.Symbols((type(answer).__name__,)))
