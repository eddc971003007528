"""``simulate --cluster`` and the study on a Dask cluster (the ``distributed`` extra): a
local cluster on this machine gives the figures of one process. Skipped without Dask."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import cli
from conformance.dask_cluster import map_on_cluster
from conformance.simulation import study
from conformance.spec.profiles import load_profile

pytestmark = pytest.mark.e2e

pytest.importorskip("distributed", reason="the distributed extra is not installed")

ARGS = ("simulate", "everestbuzz", "--games", "12", "--seed", "3", "--seats", "3")


def test_a_local_cluster_gives_the_figures_of_one_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main([*ARGS, "--json", str(tmp_path / "one.json")]) == 0
    one_table = capsys.readouterr().out
    code = cli.main([*ARGS, "--cluster", "local:2", "--json", str(tmp_path / "two.json")])
    out, err = capsys.readouterr()
    assert (code, out, err) == (0, one_table, "jhyap simulate: played 12/12 games\n")
    assert (tmp_path / "two.json").read_text() == (tmp_path / "one.json").read_text()
    # A shard on a cluster is that shard.
    code = cli.main([*ARGS, "--shard", "2/3", "--cluster", "local:1", "--json", "-"])
    shard = json.loads(capsys.readouterr().out)
    assert code == 0 and shard["games"] == 4 and shard["shard"] == {"index": 2, "count": 3}


def test_study_points_measured_on_a_cluster_are_those_of_one_process() -> None:
    document = load_profile("everestbuzz")
    tasks = [(p, document) for p in study.points_of("everestbuzz", document)[:2]]
    here = [study.measure(task) for task in tasks]
    assert map_on_cluster(study.measure, tasks, "local:2") == here


def test_an_unreachable_scheduler_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["simulate", "dhumbal", "--games", "1", "--cluster", "tcp://127.0.0.1:1"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith(
        "jhyap simulate: --cluster: cannot reach the scheduler tcp://127.0.0.1:1: "
    )
    assert len(err.splitlines()) == 1


def test_a_campaign_on_a_cluster_is_its_shards_merged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from conformance.distributed import campaign

    fuzz_args = ["--games", "4", "--profile", "everestbuzz", "--seed", "4", "--no-steer"]
    fuzz_args += ["--out", str(tmp_path / "out")]
    out = tmp_path / "merged.json"
    argv = ["--cluster", "local:2", "--shards", "2", "--json", str(out), "--", *fuzz_args]
    assert campaign.main(argv) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].startswith("4 games (everestbuzz 4), ")
    assert text.splitlines()[-1] == "no divergence"
    merged = json.loads(out.read_text())
    assert cli.main(["fuzz", *fuzz_args, "--json", str(tmp_path / "one.json")]) == 0
    one = json.loads((tmp_path / "one.json").read_text())
    for key in ("games", "requests", "profiles", "met_again", "divergences", "exit_status"):
        assert merged[key] == one[key], key
    assert campaign.main(["--cluster", "local:2", "--shards", "2", "--", "--shard", "1/2"]) == 2
    assert "--shard is set here" in capsys.readouterr().err


def test_a_campaign_whose_engine_is_missing_is_one_line_and_2(tmp_path: Path) -> None:
    engine = tmp_path / "no-such-engine"
    argv = ["--cluster", "local:1", "--shards", "1", "--", "--engine", str(engine)]
    argv += ["--games", "2", "--out", str(tmp_path / "out")]
    done = subprocess.run(
        [sys.executable, "-m", "conformance.distributed.campaign", *argv],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "python -m conformance.distributed.campaign: shard 1/1: the engine is unusable: "
        f"engine command not found: {engine} (from --engine '{engine}')\n"
    )


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("inproc://x", "inproc://x: not enough values to unpack (expected 3, got 1)"),
        ("tls://x:1", "tls://x:1: TLS expects a `ssl_context` argument"),
        ("tcp://" + "h" * 5000 + ":1", "tcp://" + "h" * 54 + "...(5008 chars): encoding with"),
    ],
)
def test_an_address_dask_cannot_use_is_one_line(
    capsys: pytest.CaptureFixture[str], address: str, why: str
) -> None:
    # bench/probes.py: each was an internal error (ValueError, TypeError, UnicodeError).
    code = cli.main(["simulate", "dashain", "--games", "1", "--cluster", address])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith(f"jhyap simulate: --cluster: cannot reach the scheduler {why}")
    assert err.count("\n") == 1
