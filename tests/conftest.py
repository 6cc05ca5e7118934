import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SOLUTIONS = ROOT / "kernelbenchx" / "solutions"



os.environ.setdefault("TRITON_INTERPRET", "1")  # in-process solution checks run on the CPU interpreter


@pytest.fixture
def shared_upstream() -> Path:
    """The upstream release's data files (code and prose that cannot ship in the repo). A plain clone has no
    ../shared beside it: tests that need it skip, and CI runs them in a second step with it present."""
    path = SHARED / "upstream"
    if not path.exists():
        pytest.skip(f"{path} is absent (upstream corpus; CI runs this with ../shared beside the clone)")
    return path
