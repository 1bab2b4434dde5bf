"""Shared fixtures: one emulator per test module, reset before each test."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from iikocloud.testing import Emulator

#: The language-neutral webhook bodies shared by the Rust, C, PHP and Python tests.
VECTORS = Path(__file__).resolve().parents[3] / "tests" / "vectors" / "payloads"


@pytest.fixture(scope="module")
def module_emulator() -> Iterator[Emulator]:
    with Emulator() as emu:
        yield emu


@pytest.fixture
def emu(module_emulator: Emulator) -> Emulator:
    module_emulator.reset()
    module_emulator.set_token_ttl(3600)
    return module_emulator
