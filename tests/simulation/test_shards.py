"""Shards (--shard K/N) of a simulation and of a fuzz campaign, and their merge: the shards
merged give the report of one run, to the last digit."""

from __future__ import annotations

import itertools
import json
import os
import re
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance import __version__, cli
from conformance.distributed.merge import merge_files, schema_problem
from conformance.distributed.shards import Shard, parse_shard
from conformance.fuzz.campaign import fuzz
from conformance.fuzz.report import json_report
from conformance.simulation.play import SimulationSpec, play_games
from conformance.simulation.stats import Moments, Tally, mean
from conformance.spec.files import InputRefused, read_input
from conformance.spec.profiles import load_profile
from tests.fuzz.test_fuzz import config, mutant

# -- which games a shard plays ----------------------------------------------------------


@given(st.integers(0, 300), st.integers(1, 40))
def test_the_shards_partition_the_games(total: int, count: int) -> None:
    played = [g for k in range(1, count + 1) for g in Shard(k, count).games(total)]
    assert sorted(played) == list(range(total))
    assert Shard(2, 3).games(10) == range(1, 10, 3)
    assert [Shard(2, 3).game_at(p) for p in range(3)] == [1, 4, 7]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0/4", "must be K/N with K from 1 to N, not '0/4'"),
        ("5/4", "must be K/N with K from 1 to N, not '5/4'"),
        ("1/0", "must be K/N with N from 1 to 100000, not '1/0'"),
        ("two/4", "must be K/N (shard K of N, e.g. 2/4), not 'two/4'"),
        ("1/2/3", "must be K/N"),
    ],
)
def test_a_bad_shard_is_refused_in_one_line(
    text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import argparse

    with pytest.raises(argparse.ArgumentTypeError, match=re.escape(message)):
        parse_shard(text)
    for command in (["simulate", "dhumbal"], ["fuzz", "--games", "1"]):
        code, out, err = _main(capsys, *command, "--shard", text)
        assert (code, out) == (2, "")
        assert err.startswith(f"jhyap {command[0]}: --shard: {message}")
        assert len(err.splitlines()) == 1
    assert parse_shard(" 3 / 4 ") == Shard(3, 4)


def test_a_shard_without_games_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["simulate", "dhumbal"], ["fuzz"]):
        code, out, err = _main(capsys, *command, "--games", "3", "--shard", "4/5")
        assert (code, out) == (2, "")
        assert err == (
            f"jhyap {command[0]}: --shard 4/5: a run of 3 games has no game for shard 4 "
            "(--games must be at least K)\n"
        )


# -- exact sufficient statistics --------------------------------------------------------


def test_moments_are_exact_and_give_the_estimate() -> None:
    m = Moments.of([1, 2.5, 4])
    assert (m.n, m.total, m.squares) == (3, Fraction(15, 2), Fraction(93, 4))
    assert Moments.from_json(json.loads(json.dumps(m.to_json()))) == m
    assert m.to_json() == {"n": 3, "sum": "15/2", "sum_squares": "93/4"}
    # 0.1 is taken at its binary value: a third of three of them is not 0.1 exactly,
    # and a float sum would round on the way.
    assert Moments.of([0.1] * 3).total == 3 * Fraction(0.1)
    e = mean([1.0, 2.0, 3.0, 4.0])
    assert (e.value, e.n) == (2.5, 4)
    assert e.high - e.value == pytest.approx(1.959963984540054 * (5 / 3) ** 0.5 / 2, abs=0)


@pytest.fixture(scope="module")
def dhumbal_records() -> list[Any]:
    # Dhumbal tables lose players (out above 100): hands at several table sizes.
    spec = SimulationSpec(load_profile("dhumbal"), 4, ("heuristic", "random"), {}, 50)
    return play_games(spec, 8, "shard-test")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 8), max_size=5))
def test_tallies_of_any_split_add_up_to_the_whole(
    dhumbal_records: list[Any], cuts: list[int]
) -> None:
    bounds = [0, *sorted(cuts), len(dhumbal_records)]
    parts = [Tally.of(dhumbal_records[a:b]) for a, b in itertools.pairwise(bounds)]
    total = Tally()
    for part in reversed(parts):
        total = total + part
    whole = Tally.of(dhumbal_records)
    assert total == whole
    assert total.summary() == whole.summary()
    assert Tally.from_json(json.loads(json.dumps(whole.to_json()))) == whole
    assert len(whole.wins_by_seats) > 1  # the split covers hands of several table sizes


# -- simulate: four shards merged are the run -------------------------------------------


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


SIMULATION = ("simulate", "dhumbal", "--games", "14", "--seed", "7", "--policy", "heuristic,random")


def test_four_simulation_shards_merged_are_the_run_to_the_last_digit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / "whole.json"
    code, table, _ = _main(capsys, *SIMULATION, "--json", str(whole))
    assert code == 0
    shards = [tmp_path / f"shard-{k}.json" for k in range(1, 5)]
    played = []
    for k, path in enumerate(shards, start=1):
        jobs = ("--jobs", "2") if k == 3 else ()  # whatever the processes
        code, shard_table, _ = _main(
            capsys, *SIMULATION, *jobs, "--shard", f"{k}/4", "--json", str(path)
        )
        assert code == 0
        assert f"(shard {k}/4 of 14)" in shard_table.splitlines()[0]
        played.append(json.loads(path.read_text())["games"])
    assert played == [4, 4, 3, 3]  # 14 games: indices 0, 4, 8, 12 / 1, 5, 9, 13 / ...
    merged = tmp_path / "merged.json"
    # In any order: the files say which shard each is.
    code, merged_table, err = _main(capsys, "merge", *map(str, shards[::-1]), "--json", str(merged))
    assert (code, err) == (0, "")
    # Byte for byte: every figure, every interval, every exact sum.
    assert merged.read_text() == whole.read_text()
    assert merged_table == table
    data = json.loads(whole.read_text())
    assert data["games"] == 14 and data["shard"] == {"index": 1, "count": 1}
    assert data["tally"]["moments"]["turns_per_hand"]["n"] == data["hands"]
    code, out, _ = _main(capsys, "merge", *map(str, shards), "--json", "-")
    assert (code, out) == (0, whole.read_text())


def test_simulate_accepts_jobs_auto(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _main(capsys, "simulate", "everestbuzz", "--games", "2", "--jobs", "auto")
    assert (code, err) == (0, "jhyap simulate: played 2/2 games\n")  # the progress, as a log
    assert "2 games, seed 0" in out


# -- merge refuses files that do not belong together ------------------------------------


@pytest.fixture(scope="module")
def sim_shards(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("sim")
    files = {}
    base = ("simulate", "everestbuzz", "--games", "5")
    for name, extra in {
        "1": ("--shard", "1/3"),
        "2": ("--shard", "2/3"),
        "3": ("--shard", "3/3"),
        "3-seed1": ("--shard", "3/3", "--seed", "1"),
        "1-of-2": ("--shard", "1/2"),
    }.items():
        files[name] = folder / f"{name}.json"
        assert cli.main([*base, *extra, "--json", str(files[name])]) == 0
    return files


def _refusal(capsys: pytest.CaptureFixture[str], *files: Path | str) -> str:
    code, out, err = _main(capsys, "merge", *map(str, files))
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err.strip()


def test_merge_refuses_shards_of_different_runs(
    sim_shards: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = sim_shards
    assert _refusal(capsys, s["1"], s["2"]) == (
        "jhyap merge: shard 3/3 missing: every shard of the run must be given"
    )
    assert _refusal(capsys, s["1"], s["2"], s["2"], s["3"]) == (
        f"jhyap merge: {s['2']} and {s['2']} are both shard 2/3"
    )
    assert _refusal(capsys, s["1"], s["2"], s["3-seed1"]) == (
        f"jhyap merge: {s['1']} and {s['3-seed1']} are not shards of one run: "
        'their seed differs ("0" and "1")'
    )
    assert _refusal(capsys, s["1"], s["1-of-2"]) == (
        f"jhyap merge: {s['1']} and {s['1-of-2']} are not shards of one run: one of 3 "
        "shards and one of 2"
    )
    older = tmp_path / "older.json"
    data = json.loads(s["3"].read_text())
    data["tool"]["version"] = "0.0.1"
    older.write_text(json.dumps(data))
    assert _refusal(capsys, s["1"], s["2"], older) == (
        f"jhyap merge: {s['1']} and {older} are not shards of one run: their jhyap version "
        f'differs ("{__version__}" and "0.0.1")'
    )
    broken = tmp_path / "broken.json"
    data = json.loads(s["3"].read_text())
    data["tally"]["moments"]["turns_per_hand"]["sum"] = "a lot"
    broken.write_text(json.dumps(data))
    assert _refusal(capsys, s["1"], s["2"], broken).startswith(
        f"jhyap merge: {broken}: field tally/moments/turns_per_hand/sum: 'a lot' does not match"
    )
    (tmp_path / "half.json").write_text('{"format": ')
    assert _refusal(capsys, tmp_path / "half.json") == (
        f"jhyap merge: {tmp_path / 'half.json'}: line 1: not JSON (Expecting value)"
    )
    (tmp_path / "other.json").write_text('{"format": "jhyap-conformance-report"}')
    assert "not the --json file of jhyap simulate or jhyap fuzz" in _refusal(
        capsys, tmp_path / "other.json"
    )
    assert _refusal(capsys, tmp_path / "none.json").endswith("none.json: No such file or directory")
    # Nothing was written over: --json naming a shard file is refused up front.
    before = s["1"].read_text()
    code, _, err = _main(capsys, "merge", str(s["1"]), "--json", str(s["1"]))
    assert code == 2 and s["1"].read_text() == before
    assert err.startswith("jhyap merge: ") and len(err.splitlines()) == 1


def test_merge_refuses_what_is_not_a_regular_file_at_once(
    sim_shards: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = sim_shards
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # no writer: reading it would wait forever
    assert _refusal(capsys, s["1"], fifo, s["3"]) == (
        f"jhyap merge: cannot read {fifo}: a named pipe, not a regular file"
    )
    assert _refusal(capsys, s["1"], "/dev/zero", s["3"]) == (
        "jhyap merge: cannot read /dev/zero: a character device, not a regular file"
    )
    assert _refusal(capsys, s["1"], tmp_path, s["3"]) == (
        f"jhyap merge: cannot read {tmp_path}: a folder, not a regular file"
    )


def test_an_input_file_is_read_up_to_its_bound(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 11)
    with pytest.raises(InputRefused, match=r"big\.json: larger than 10 bytes$"):
        read_input(path, limit=10)
    assert read_input(path, limit=11) == b"x" * 11


@pytest.mark.parametrize(
    ("name", "field", "value", "why"),
    [
        ("turns_per_hand", "sum", "-5", "sum: negative, but it adds counts"),
        (
            "won_call_swing",
            "sum_squares",
            "-1",
            "sum_squares: negative, but a sum of squares is not",
        ),
        (
            "won_call_swing",
            "sum_squares",
            "0",
            "sum_squares: below sum^2/n, which no observations give",
        ),
        ("won_call_swing", "sum", "1/0", ": a fraction whose denominator is 0"),
    ],
)
def test_merge_refuses_an_impossible_tally(
    sim_shards: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    field: str,
    value: str,
    why: str,
) -> None:
    s = sim_shards
    forged = tmp_path / "forged.json"
    data = json.loads(s["2"].read_text())
    moments = data["tally"]["moments"][name]
    assert moments["n"] > 0 and Fraction(moments["sum"]) != 0  # the forgery is what breaks it
    moments[field] = value
    forged.write_text(json.dumps(data))
    where = f"tally/moments/{name}" + ("/" if not why.startswith(":") else "")
    assert _refusal(capsys, s["1"], forged, s["3"]) == (
        f"jhyap merge: {forged}: field {where}{why}"
    )


def test_no_observation_has_no_sums() -> None:
    empty = {"n": 0, "sum": "0", "sum_squares": "4"}
    tally = {"moments": {"value_at_call": empty}}
    assert Tally.problem_of(tally) == (
        "tally/moments/value_at_call: sums that are not 0 of no observation (n is 0)"
    )
    assert Tally.problem_of({"moments": {"value_at_call": {**empty, "sum_squares": "0"}}}) is None


# -- fuzz: four shards merged are the run -----------------------------------------------

TIMING = {"created", "command", "jobs", "seconds", "shrinking_seconds"}
TIMING |= {"games_per_second", "requests_per_second", "merged_from"}


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    """A report without what depends on the clock or on the shard a finding came from."""
    out = {k: v for k, v in report.items() if k not in TIMING}
    out["run"] = {k: v for k, v in report["run"].items() if k != "shard"}
    out["divergences"] = [
        {
            **{k: v for k, v in f.items() if k not in ("find_seconds", "shrink_seconds")},
            "rerun": re.sub(r" --shard \d+/\d+", "", f["rerun"]),
            "transcript": Path(f["transcript"]).name if f["transcript"] else None,
            "replay": f["replay"].split(" --transcripts ")[0],
        }
        for f in report["divergences"]
    ]
    return out


@pytest.mark.usefixtures("fuzz_engines")  # the engines in this process
def test_four_fuzz_shards_merged_are_the_run(tmp_path: Path) -> None:
    # Without steering every game is fixed by the seed and its index alone. The mutant
    # diverges in some games only: findings, repeats and coverage all merge.
    base = config(
        mutant("dealer_stays"), games=23, seed=5, steer=False, shrink_budget=0, out=tmp_path
    )
    whole = json_report(base, fuzz(base), 0)
    files = []
    for k in range(1, 5):
        cfg = replace(base, shard=(k, 4), out=tmp_path / f"out-{k}")
        path = tmp_path / f"shard-{k}.json"
        path.write_text(json.dumps(json_report(cfg, fuzz(cfg), 0)))
        files.append(str(path))
    merged = merge_files(files).report
    assert merged["merged_from"] == files
    assert schema_problem(merged, "fuzz-report.schema.json") is None
    whole["exit_status"] = 1 if whole["divergences"] else 0
    assert _comparable(merged) == _comparable(whole)
    # What the comparison covers is not empty.
    assert whole["games"] == 23 and whole["divergences"] and whole["met_again"]
    assert any(sum(p["coverage"].values()) for p in whole["profiles"].values())
    # Each class is filed by its lowest game, whichever shard played it.
    shard_of = {f["game"]: f["rerun"].split("--shard ")[1][0] for f in merged["divergences"]}
    assert all(int(shard_of[g]) == g % 4 + 1 for g in shard_of)


@pytest.mark.e2e
def test_fuzz_shards_through_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["fuzz", "--games", "6", "--profile", "everestbuzz,dhumbal", "--seed", "2"]
    args += ["--out", str(tmp_path / "out")]
    files = []
    for k in (1, 2):
        files.append(str(tmp_path / f"{k}.json"))
        code, out, _ = _main(capsys, *args, "--shard", f"{k}/2", "--json", files[-1])
        assert code == 0 and ", shard " + f"{k}/2)" in out
    code, out, err = _main(capsys, "merge", *files)
    assert (code, err) == (0, "")
    assert out.splitlines()[0].startswith("6 games (everestbuzz 3, dhumbal 3), ")
    assert out.splitlines()[-1] == "no divergence"
    # A campaign's shards do not merge with a simulation's.
    assert cli.main(["simulate", "dhumbal", "--games", "1", "--json", str(tmp_path / "s")]) == 0
    capsys.readouterr()
    message = _refusal(capsys, files[0], tmp_path / "s")
    assert message == (
        f"jhyap merge: {tmp_path / 's'} is a simulation and {files[0]} a fuzz report: "
        "they do not merge"
    )


# -- simulate --cluster: refused up front ------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ("--cluster", "somewhere"),
            "--cluster: must be local:N or a scheduler address such as tcp://host:8786, "
            "not 'somewhere'",
        ),
        (("--cluster", "local:0"), "--cluster: local:N needs N from 1 to 1024"),
        (
            ("--cluster", "local:2", "--jobs", "2"),
            "--cluster and --jobs: the cluster's workers are the jobs; give one",
        ),
    ],
)
def test_a_bad_cluster_is_refused_before_playing(
    extra: tuple[str, ...], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _main(capsys, "simulate", "dhumbal", *extra)
    assert (code, out, err) == (2, "", f"jhyap simulate: {message}\n")


def test_a_cluster_without_dask_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    code, out, err = _main(capsys, "simulate", "dhumbal", "--games", "1", "--cluster", "local:1")
    assert (code, out) == (2, "")
    assert err == (
        "jhyap simulate: --cluster: a cluster needs Dask: install the distributed extra "
        "(pip install '.[distributed]' in the checkout)\n"
    )


def test_a_campaign_report_path_in_the_way_is_refused_before_the_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # No Dask needed: the refusal comes before any scheduler is asked, and the file is kept.
    from conformance.distributed import campaign

    notes = tmp_path / "notes.json"
    notes.write_text('{"mine": true}\n')
    argv = ["--cluster", "tcp://127.0.0.1:1", "--shards", "2", "--json", str(notes)]
    assert campaign.main([*argv, "--", "--games", "2", "--profile", "dhumbal"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("python -m conformance.distributed.campaign: --json: ")
    assert "not a jhyap fuzz JSON report" in err and len(err.splitlines()) == 1
    assert notes.read_text() == '{"mine": true}\n'


def _strict(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_a_figure_without_observations_is_null_in_strict_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # dashain: the host ends every game, so no game gives hands per game
    shards = [tmp_path / f"{k}.json" for k in (1, 2)]
    for k, path in enumerate(shards, start=1):
        base = ("simulate", "dashain", "--games", "4", "--shard", f"{k}/2")
        assert cli.main([*base, "--json", str(path)]) == 0
    assert capsys.readouterr().err == "jhyap simulate: played 2/2 games\n" * 2  # the progress
    merged = tmp_path / "merged.json"
    code, _, err = _main(capsys, "merge", *map(str, shards), "--json", str(merged))
    assert (code, err) == (0, "")
    for path in (*shards, merged):
        report = _strict(path.read_text())
        assert report["hands_per_game"] == {"value": None, "low": None, "high": None, "n": 0}
        assert schema_problem(report, "simulation.schema.json") is None
