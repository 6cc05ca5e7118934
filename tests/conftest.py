import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SOLUTIONS = ROOT / "kernelbenchx" / "solutions"

os.environ.setdefault("TRITON_INTERPRET", "1")  # in-process solution checks run on the CPU interpreter


@pytest.fixture
def shared_upstream() -> Path:
    path = SHARED / "upstream"
    if not path.exists():
        pytest.fail(f"{path} is missing: tests read upstream facts from ../shared (as CI lays it out)")
    return path
