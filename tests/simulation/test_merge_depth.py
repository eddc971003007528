"""Issue 41, item 7: a shard nested 200,000 deep is refused in one line, not a
RecursionError."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import cli


def test_a_shard_nested_200000_deep_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    assert cli.main(["merge", str(deep), str(deep)]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == (
        "",
        f"jhyap merge: {deep}: not a shard file: nested deeper than 64 levels\n",
    )
