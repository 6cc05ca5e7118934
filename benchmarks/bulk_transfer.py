"""What one large tensor costs to cross from a child process to the parent: as a torch.save frame through the pipe
(how held perf outputs travelled before evaluator/bulk.py) and through a shared region, cold (fresh pages) and warm.
A real child process (tests/bulk_child.py) doubles the tensor and replies; the parent decodes. Seconds per call.

    python benchmarks/bulk_transfer.py [GiB]        # default 1; run 47's largest held output was ~3 GB
"""

from __future__ import annotations

import json
import sys
import time

from kernelbenchx.evaluator import bulk
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.isolation import TRUSTED
from kernelbenchx.evaluator.process import Child, Limits


def replies(elements: int, region: tuple[str, int] | None, calls: int) -> list[float]:
    """Seconds of each call for a reply of `elements` float32 values the child makes (the child's own
    torch.ones is inside the time, the same in both ways)."""
    seconds = []
    with Child("tests.bulk_child", Limits(wall_s=600), TRUSTED, bulk_region=region) as child:
        for _ in range(calls):
            clock = time.perf_counter()
            reply = child.call(m.HeldOutput(3, elements), timeout=600)
            seconds.append(round(time.perf_counter() - clock, 3))
            assert reply.output.numel() == elements
    return seconds


def main() -> None:
    gib = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    elements = int(gib * (1 << 30)) // 4
    region = (bulk.REPLIES, elements * 4 + (1 << 20))
    print(json.dumps({"gib": gib, "in_frame_s": replies(elements, None, 2),
                      "in_region_s (first, second)": replies(elements, region, 2)}))


if __name__ == "__main__":
    main()
