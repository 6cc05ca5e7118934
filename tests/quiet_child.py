"""A stand-in candidate process for tests/test_host_quiet.py. As the one being timed (KBX_TEST_ROLE=timed) it asks
for a quiet host, holds it 2.5 s and lets it go; as a bystander it replies after 0.2 s of its own running time."""

import os
import sys
import time

from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.process import Channel

channel = Channel(int(sys.argv[1]))
for request in channel.requests():
    if os.environ.get("KBX_TEST_ROLE") == "timed":
        channel.quiet_host(True)
        time.sleep(2.5)
        channel.quiet_host(False)
    else:
        for _ in range(20):  # 0.2 s of this process's running, not of the wall clock
            time.sleep(0.01)
    channel.reply(m.Symbols(("done",)))
