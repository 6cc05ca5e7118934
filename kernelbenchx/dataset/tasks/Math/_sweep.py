"""Deviation records shared by Math tasks whose perf cases are a subset of upstream's 1-D size sweep.

Upstream times each elementwise Math task on 16 1-D inputs of 2^12 … 2^27 elements (torch.randn, fp32 unless
noted) and reports the sum of the times. kbx times three of those sizes separately.
"""

from __future__ import annotations

from kernelbenchx.dataset.deviation import Deviation, Kind

SUBSET_REASON = ("a subset spanning upstream's range: below 2^16 elements a call measures launch overhead, not "
                 "the kernel, and three sizes keep the timing budget; each size is timed and reported on its own")


def sweep_subset(kbx: str = "1-D inputs of 2^16, 2^24 and 2^27 elements", *, upstream: str = "",
                 extra_reason: str = "") -> Deviation:
    """The PERF record of a task timed on a subset of upstream's 1-D sweep (`kbx` says which inputs)."""
    upstream = upstream or "16 1-D fp32 inputs of 2^12 … 2^27 elements, times summed"
    reason = SUBSET_REASON + (f"; {extra_reason}" if extra_reason else "")
    return Deviation(Kind.PERF, upstream, kbx, reason)
