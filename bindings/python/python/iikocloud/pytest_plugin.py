"""pytest plugin of iikocloud (registered through the ``pytest11`` entry
point): the fixture ``iikocloud_emulator``."""

from __future__ import annotations

from typing import Iterator

import pytest

from .testing import Emulator


@pytest.fixture
def iikocloud_emulator() -> Iterator[Emulator]:
    """A fresh in-process emulator per test, stopped afterwards."""
    with Emulator() as emu:
        yield emu
