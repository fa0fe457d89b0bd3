"""Reading the YAML users write: bounded in size and alias expansion, strict on duplicate keys (issue 30)."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest

from adat.errors import UserError
from adat.yaml_io import MAX_YAML_BYTES, MAX_YAML_NODES, excerpt, read_user_text, read_yaml

#: 9 levels of 9 aliases: a few hundred bytes that expand to 9**9 strings (billion laughs)
BOMB = "a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n" + "".join(
    f"{n}: &{n} [{','.join(['*' + p] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=True))


def _write(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "f.yaml"
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)  # type: ignore[operator]
    return path


def test_an_alias_bomb_is_refused_fast_and_small(tmp_path: Path) -> None:
    path = _write(tmp_path, BOMB)
    assert len(BOMB) < 450
    tracemalloc.start()
    started = time.monotonic()
    with pytest.raises(UserError, match=f"over {MAX_YAML_NODES} values"):
        read_yaml(path)
    elapsed = time.monotonic() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert elapsed < 1.0 and peak < 20 * 2**20, (elapsed, peak)


def test_aliases_and_merge_keys_within_the_bound_still_load(tmp_path: Path) -> None:
    path = _write(tmp_path, "base: &b {x: 1, y: [1, 2]}\nuse: {<<: *b, z: 3}\nagain: *b\n")
    assert read_yaml(path) == {"base": {"x": 1, "y": [1, 2]}, "use": {"x": 1, "y": [1, 2], "z": 3},
                               "again": {"x": 1, "y": [1, 2]}}


@pytest.mark.parametrize("text", ["seed: 1\nseed: 2\n", "a:\n  b: 1\n  c: 2\n  b: 3\n", "- {k: 1, k: 1}\n"])
def test_a_key_given_twice_is_refused_with_its_line(tmp_path: Path, text: str) -> None:
    with pytest.raises(UserError, match=r"given twice \(first on line \d\)") as info:
        read_yaml(_write(tmp_path, text))
    assert "line" in (info.value.field or "")


def test_not_utf8_and_too_large_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="not UTF-8") as info:
        read_yaml(_write(tmp_path, b"a: 1\nb: caf\xe9\n"))
    assert info.value.field == "line 2"
    with pytest.raises(UserError, match=f"over the {MAX_YAML_BYTES // 1024} KB limit"):
        read_yaml(_write(tmp_path, "a: '" + "x" * MAX_YAML_BYTES + "'\n"))
    with pytest.raises(UserError, match="not found"):
        read_user_text(tmp_path / "missing.yaml")


def test_an_excerpt_is_short_and_says_how_long_the_value_was() -> None:
    assert excerpt("abc") == "'abc'"
    long = excerpt("x" * 5000)
    assert len(long) < 100 and "5002 chars" in long
    error = UserError("m" * 5000, file="f" * 5000, field="g", fix="h" * 5000)
    assert len(error.one_line()) < 1000
