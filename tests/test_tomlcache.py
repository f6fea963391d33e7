"""The parsed-TOML cache (asks/core/tomlcache.py): a hit is what parsing gives, for the very
same text only; errors, dates and PYTHONDONTWRITEBYTECODE behave as without a cache."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from asks.agent.scripted import builtin_tour, parse_script
from asks.core.tomlcache import beside_pyc, parsed_toml

TEXT = 'name = "t"\n[[step]]\non = "start"\nlist = [1, 2.5, true, "x"]\n'


@pytest.fixture(autouse=True)
def bytecode_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


def test_a_hit_is_the_parse_and_a_fresh_copy(tmp_path: Path) -> None:
    cache = tmp_path / "c.bin"
    first = parsed_toml(TEXT, cache)
    assert first == tomllib.loads(TEXT)
    assert cache.read_bytes().startswith(importlib.util.MAGIC_NUMBER)
    first["step"].append("changed")
    again = parsed_toml(TEXT, cache)
    assert again == tomllib.loads(TEXT)


def test_a_hit_needs_no_tomllib(tmp_path: Path) -> None:
    cache = tmp_path / "c.bin"
    parsed_toml(TEXT, cache)
    code = (
        "import sys; from pathlib import Path; from asks.core.tomlcache import parsed_toml;"
        f"t = parsed_toml({TEXT!r}, Path({str(cache)!r})); print('tomllib' in sys.modules, t)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split(" ", 1) == ["False", f"{tomllib.loads(TEXT)}\n"]


def test_another_text_misses_and_replaces_the_file(tmp_path: Path) -> None:
    cache = tmp_path / "c.bin"
    parsed_toml(TEXT, cache)
    other = TEXT.replace('"t"', '"u"')
    assert parsed_toml(other, cache)["name"] == "u"
    assert parsed_toml(other, cache) == tomllib.loads(other)
    assert parsed_toml(TEXT, cache)["name"] == "t"


@pytest.mark.parametrize(
    "content", [b"", b"junk", importlib.util.MAGIC_NUMBER + b"asks parsed toml\nxx"]
)
def test_a_damaged_or_foreign_file_is_ignored(tmp_path: Path, content: bytes) -> None:
    cache = tmp_path / "c.bin"
    cache.write_bytes(content)
    assert parsed_toml(TEXT, cache) == tomllib.loads(TEXT)
    assert cache.read_bytes() != content  # rewritten after the miss


def test_invalid_toml_raises_and_writes_nothing(tmp_path: Path) -> None:
    cache = tmp_path / "c.bin"
    with pytest.raises(tomllib.TOMLDecodeError):
        parsed_toml("a = [", cache)
    assert not cache.exists()


def test_a_date_is_parsed_every_time(tmp_path: Path) -> None:
    cache = tmp_path / "c.bin"
    assert parsed_toml("d = 2026-12-02", cache) == tomllib.loads("d = 2026-12-02")
    assert not cache.exists()


def test_nothing_is_written_without_bytecode_or_without_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert parsed_toml(TEXT, None) == tomllib.loads(TEXT)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert parsed_toml(TEXT, tmp_path / "c.bin") == tomllib.loads(TEXT)
    assert not (tmp_path / "c.bin").exists()


def test_the_tour_from_the_cache_is_the_parsed_tour(tmp_path: Path) -> None:
    from asks.agent import scripted  # noqa: PLC0415

    text = (Path(scripted.__file__).parent / "tour.toml").read_text(encoding="utf-8")
    builtin_tour()  # writes (or hits) the cache beside the module's .pyc
    assert beside_pyc(scripted.__file__, "tour.toml.bin").exists()
    assert builtin_tour().steps == parse_script(text, "<built-in tour>").steps
    assert builtin_tour().localized
