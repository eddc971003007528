"""Issue 41, item 7: a shard nested 200,000 deep is refused in one line, not a
RecursionError."""

from __future__ import annotations

import json
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


@pytest.mark.parametrize(
    ("path", "value", "said"),
    [
        (("tally", "hands"), 10**400, "tally/hands: a number of 1329 bits, beyond 2^53 - 1"),
        (("games",), 2**53, "games: a number of 54 bits, beyond 2^53 - 1"),
        (
            ("tally", "moments", "turns_per_hand", "sum"),
            "9" * 5000,
            "tally/moments/turns_per_hand/sum: an exact figure of 5,000 characters",
        ),
    ],
)
def test_a_shard_number_beyond_what_a_run_writes_is_refused_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    path: tuple[str, ...],
    value: object,
    said: str,
) -> None:
    # bench/probes.py: 10**400 hands was an internal error (OverflowError) and a sum of
    # 5,000 digits another (ValueError: Exceeds the limit (4300 digits)).
    for shard in ("1/2", "2/2"):
        out = tmp_path / f"s{shard[0]}.json"
        argv = ["simulate", "dashain", "--games", "2", "--seats", "2", "--shard", shard]
        assert cli.main([*argv, "--json", str(out)]) == 0
    capsys.readouterr()
    first = tmp_path / "s1.json"
    data = json.loads(first.read_text())
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    first.write_text(json.dumps(data))
    assert cli.main(["merge", str(first), str(tmp_path / "s2.json")]) == 2
    assert capsys.readouterr() == ("", f"jhyap merge: {first}: field {said}\n")
