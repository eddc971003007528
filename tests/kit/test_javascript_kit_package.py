"""The JavaScript kit as an npm package, its README binding, and the kit playing every
shipped profile and test variant through the harness (kits/javascript/)."""

from __future__ import annotations

import functools
import json
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import made_once
from tests.kit.test_kit_plays_what_the_reference_plays import check_scope_outcomes, scope_outcomes

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "kits" / "javascript"
NODE = shutil.which("node")
NPM = shutil.which("npm")
PROFILE_ENGINE = KIT / "test" / "profile-engine.mjs"


@functools.cache
def profile_engine_command() -> str:
    """The profile test engine as the harness starts it, with node's optimizing compiler off:
    an engine plays one ruleset's corpus (some 3,600 requests) and exits, too short a life for
    TurboFan's compiles (a quarter to a third of its CPU) to pay back; the kit answers the
    same either way. The flag is the first this node knows: newer V8 keeps --opt only as an
    alias of --turbofan, older V8 knows no --turbofan, and node refuses a flag it does not know."""
    assert NODE is not None
    for flag in ("--no-opt", "--no-turbofan"):
        probe = subprocess.run([NODE, flag, "-e", ""], capture_output=True, check=False)
        if probe.returncode == 0:
            return f"{NODE} {flag} {PROFILE_ENGINE} --serve"
    return f"{NODE} {PROFILE_ENGINE} --serve"


# Every ruleset the harness can run under: the shipped profiles and the test variants, but
# those the kit refuses by name (throws.slapdown: the slapdown action is not in its
# procedure; kits/javascript/test/rules.test.mjs checks the refusal).
REFUSED_BY_NAME = ("bga-yaniv-slapdown",)
PROFILE_FILES = sorted(
    path
    for path in [
        *(ROOT / "specs").glob("*.yaml"),
        *(ROOT / "tests" / "data" / "variants").glob("*.yaml"),
    ]
    if path.stem not in REFUSED_BY_NAME
)

needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed (CI installs it)")
needs_npm = pytest.mark.skipif(
    NODE is None or NPM is None, reason="node and npm are not installed (CI installs them)"
)


def _kit_constant(name: str) -> str:
    found = re.search(
        rf"^export const {name} = '([^']+)';", (KIT / "jhyap-kit.mjs").read_text("utf-8"), re.M
    )
    assert found is not None, name
    return found.group(1)


def test_the_package_is_named_by_the_protocol_it_speaks() -> None:
    package = json.loads((KIT / "package.json").read_text("utf-8"))
    protocol = _kit_constant("PROTOCOL_VERSION")
    assert protocol == "1.2"
    assert package["name"] == "jhyap-kit"
    # major.minor: the protocol version; the patch: the kit's own revision.
    assert package["version"].rsplit(".", 1)[0] == protocol
    assert package["version"] == _kit_constant("KIT_VERSION")
    assert package["type"] == "module"
    assert package["exports"]["."] == {
        "types": "./jhyap-kit.d.mts",
        "default": "./jhyap-kit.mjs",
    }
    assert package["files"] == ["jhyap-kit.mjs", "jhyap-kit.d.ts", "jhyap-kit.d.mts", "README.md"]
    assert package["engines"] == {"node": ">=18"}
    assert all((KIT / name).is_file() for name in package["files"])


def _run(
    args: list[str | Path], cwd: Path, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _smoke(engine: str, *extra: str | Path) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, "-m", "conformance", "smoke", "--engine", engine, *extra], ROOT)


@pytest.mark.e2e
@needs_npm
def test_packed_kit_installs_type_checks_and_passes_smoke(tmp_path: Path) -> None:
    """`npm pack`, then `npm install` of the tarball in an empty folder: `import ... from
    'jhyap-kit'` works, a TypeScript binding type-checks and compiles (tsc from npm), and
    the compiled binding passes `jhyap smoke`."""
    assert NPM is not None and NODE is not None
    packed = _run([NPM, "pack", "--json", "--pack-destination", tmp_path], KIT)
    assert packed.returncode == 0, packed.stderr
    [tarball] = json.loads(packed.stdout)
    assert tarball["filename"] == f"jhyap-kit-{_kit_constant('KIT_VERSION')}.tgz"
    assert sorted(f["path"] for f in tarball["files"]) == [
        "README.md",
        "jhyap-kit.d.mts",
        "jhyap-kit.d.ts",
        "jhyap-kit.mjs",
        "package.json",
    ]
    app = tmp_path / "app"
    app.mkdir()
    (app / "package.json").write_text('{"name": "app", "private": true, "type": "module"}\n')
    installed = _run(
        [NPM, "install", "--no-audit", "--no-fund", tmp_path / tarball["filename"], "typescript"],
        app,
    )
    assert installed.returncode == 0, installed.stderr
    imported = _run(
        [
            NODE,
            "--input-type=module",
            "-e",
            "import {PROTOCOL_VERSION, KIT_VERSION, TrackedEngine} from 'jhyap-kit';"
            "console.log(PROTOCOL_VERSION, KIT_VERSION, typeof TrackedEngine)",
        ],
        app,
    )
    assert imported.stdout == f"1.2 {_kit_constant('KIT_VERSION')} function\n", imported.stderr
    shutil.copy(KIT / "test" / "fixtures" / "typescript-binding.mts", app / "binding.mts")
    (app / "tsconfig.json").write_text(
        json.dumps(
            {
                "compilerOptions": {
                    "module": "nodenext",
                    "moduleResolution": "nodenext",
                    "target": "es2022",
                    "strict": True,
                    "outDir": "out",
                },
                "files": ["binding.mts"],
            }
        )
    )
    tsc = app / "node_modules" / "typescript" / "bin" / "tsc"
    checked = _run([NODE, tsc, "--noEmit", "-p", "."], app)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    compiled = _run([NODE, tsc, "-p", "."], app)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    smoke = _smoke(f"{NODE} {app / 'out' / 'binding.mjs'}")
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    assert "ok   engine: typescript-binding 1.0.0, written in typescript" in smoke.stdout
    assert smoke.stdout.rstrip().endswith("smoke: 24 ok, 0 failed, 0 skipped; ready for jhyap run")


@pytest.mark.e2e
@needs_node
def test_readme_binding_passes_smoke(tmp_path: Path) -> None:
    """The README's 30-line binding, saved where the README says, passes the README's smoke
    line run as written from a copy of the repository's layout."""
    readme = (KIT / "README.md").read_text("utf-8")
    found = re.search(r"```js\n(.*?)```", readme, re.S)
    assert found is not None
    # The two imports, relative to kits/javascript/, reach the kit and the example engine.
    code = (
        found.group(1)
        .replace("'./jhyap-kit.mjs'", json.dumps((KIT / "jhyap-kit.mjs").as_uri()))
        .replace(
            "'../../examples/javascript-object/yaniv.mjs'",
            json.dumps((ROOT / "examples" / "javascript-object" / "yaniv.mjs").as_uri()),
        )
    )
    (tmp_path / "kits" / "javascript").mkdir(parents=True)
    (tmp_path / "kits" / "javascript" / "my-binding.mjs").write_text(code, "utf-8")
    rules = ROOT / "examples" / "javascript-object" / "rules.yaml"
    (tmp_path / "examples" / "javascript-object").mkdir(parents=True)
    shutil.copy(rules, tmp_path / "examples" / "javascript-object" / "rules.yaml")
    [line] = [x for x in readme.splitlines() if x.startswith("$ jhyap smoke ")]
    words = shlex.split(line[2:])
    assert words[:3] == ["jhyap", "smoke", "--engine"]
    smoke = _run([sys.executable, "-m", "conformance", *words[1:]], tmp_path)
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    assert "FAIL" not in smoke.stdout
    # The points smoke checks under other shipped profiles are skipped: the sketch declines them.
    last = smoke.stdout.rstrip().splitlines()[-1]
    assert last == "smoke: 18 ok, 0 failed, 6 skipped; ready for jhyap run"
    assert f"(`{last}`" in " ".join(readme.split())


def _outcomes(report: Path) -> dict[str, int]:
    data: dict[str, Any] = json.loads(report.read_text("utf-8"))
    counts: dict[str, int] = {}
    for result in data["results"]:
        counts[result["outcome"]] = counts.get(result["outcome"], 0) + 1
    return counts


def _profile_id(path: Path) -> str:
    found = re.search(r"^id: (\S+)$", path.read_text("utf-8"), re.M)
    assert found is not None, path
    return found.group(1)


# Sync hooks under every ruleset; every hook async under the shipped profiles.
RUNS = [(path, "sync") for path in PROFILE_FILES] + [
    (path, "async") for path in PROFILE_FILES if path.parent.name == "specs"
]
# The rulesets are played in a few `jhyap run`s, each with several --profile (one engine and
# one corpus load a run, not one a ruleset); the sync ones in two halves taken alternately,
# so that xdist, dealing the tests out in turn, starts each of two workers on its own half.
GROUPS: dict[str, tuple[str, list[Path]]] = {
    "sync-1": ("sync", PROFILE_FILES[0::2]),
    "sync-2": ("sync", PROFILE_FILES[1::2]),
    "async": ("async", [path for path, mode in RUNS if mode == "async"]),
}


def _group_of(profile: Path, mode: str) -> str:
    [name] = [n for n, (m, paths) in GROUPS.items() if m == mode and profile in paths]
    return name


@dataclass(frozen=True)
class GroupRun:
    """One `jhyap run` of the profile test engine under a group's rulesets."""

    returncode: int
    stdout: str
    stderr: str
    outcomes: dict[str, dict[str, int]]  # profile id -> outcome -> count


def _play_group(group: str, folder: Path) -> None:
    assert NODE is not None
    mode, paths = GROUPS[group]
    flags = " --async" if mode == "async" else ""
    report = folder / "report.json"
    command: list[str | Path] = [sys.executable, "-m", "conformance", "run", "-q", "--jobs", "1"]
    command += ["--engine", f"{profile_engine_command()}{flags}", "--json", report]
    for path in paths:
        command += ["--profile", path]
    done = _run(command, ROOT, timeout=300 + 120 * len(paths))
    (folder / "run.json").write_text(
        json.dumps({"returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr})
    )


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], GroupRun]:
    runs: dict[str, GroupRun] = {}  # read once a worker: the report is large

    def get(group: str) -> GroupRun:
        if group not in runs:
            runs[group] = read(group)
        return runs[group]

    def read(group: str) -> GroupRun:
        folder = made_once(tmp_path_factory, f"js-kit-{group}", lambda f: _play_group(group, f))
        run = json.loads((folder / "run.json").read_text("utf-8"))
        outcomes: dict[str, dict[str, int]] = {}
        report = folder / "report.json"
        results = json.loads(report.read_text("utf-8"))["results"] if report.exists() else []
        for result in results:
            counts = outcomes.setdefault(result["profile"], {})
            counts[result["outcome"]] = counts.get(result["outcome"], 0) + 1
        return GroupRun(run["returncode"], run["stdout"], run["stderr"], outcomes)

    return get


@pytest.mark.e2e
@needs_node
@pytest.mark.parametrize(
    ("profile", "mode"), RUNS, ids=[f"{path.stem}-{mode}" for path, mode in RUNS]
)
def test_kit_plays_every_ruleset_as_the_reference(
    profile: Path, mode: str, played: Callable[[str], GroupRun]
) -> None:
    """The profile test engine (the profile's own rules with the kit's helpers; every hook
    async in mode async) through the harness: nothing fails, and nothing is declined (the
    kit plays every value of every parameter it reads)."""
    done = played(_group_of(profile, mode))
    counts = done.outcomes.get(_profile_id(profile), {})
    assert set(counts) <= {"passed", "not_applicable"}, done.stdout[-4000:]
    # Under dhumbal-no-kings most deals name a king: other cards stand in for them (derived).
    assert counts.get("passed", 0) >= 10, counts
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


@pytest.mark.e2e
@needs_node
@pytest.mark.parametrize("group", sorted(GROUPS))
def test_a_group_run_judges_only_its_own_rulesets(
    group: str, played: Callable[[str], GroupRun]
) -> None:
    _, paths = GROUPS[group]
    assert sorted(played(group).outcomes) == sorted(_profile_id(p) for p in paths)


def _profile_engine_runs(
    folder: str, variants: Sequence[str], tmp_path: Path
) -> tuple[dict[str, int], subprocess.CompletedProcess[str]]:
    """The profile test engine over the transcripts of ``tests/data/variants/FOLDER`` under
    each named variant: the outcomes counted, and the finished run."""
    assert NODE is not None
    root = ROOT / "tests" / "data" / "variants"
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "conformance", "run", "-q", "--jobs", "1"]
    command += ["--engine", profile_engine_command()]
    command += ["--transcripts", str(root / folder)]
    for name in variants:
        command += ["--profile", str(root / f"{name}.yaml")]
    done = _run([*command, "--json", report], ROOT, timeout=600)
    return _outcomes(report), done


@pytest.mark.e2e
@needs_node
def test_kit_plays_the_call_timing_transcripts_as_written(tmp_path: Path) -> None:
    """call.min_own_turns: the profile test engine passes the oracle transcripts of its two
    variants as written (refused at N - 1 of one's own turns, accepted at N)."""
    outcomes, done = _profile_engine_runs(
        "call-timing-transcripts",
        ("dhumbal-call-after-two-turns", "everestbuzz-call-after-one-turn"),
        tmp_path,
    )
    assert outcomes == {"passed": 4}, done.stdout[-4000:]
    assert done.returncode == 0


@pytest.mark.e2e
@needs_node
def test_kit_plays_the_run_order_transcripts_as_written(tmp_path: Path) -> None:
    """throws.run.order ascending, throws.laid runs_by_rank and throws.single_joker false: the
    profile test engine refuses a run placed otherwise than lowest first (outOfOrder) and a
    joker alone (jokerAloneRefused), the kit lays a run by rank and a set as placed
    (laidCards) and stands a spare joker below a run under throws.run.jokers_extend down_first
    (runPositions), and the four variants' oracle transcripts pass as written."""
    outcomes, done = _profile_engine_runs(
        "run-order-transcripts",
        (
            "dhumbal-runs-ascending",
            "bga-yaniv-runs-by-rank",
            "bga-yaniv-jokers-only-in-runs",
            "yaniv-israel-jokers-extend-down",
        ),
        tmp_path,
    )
    assert outcomes == {"passed": 16}, done.stdout[-4000:]
    assert done.returncode == 0


@pytest.mark.e2e
@needs_node
def test_kit_plays_the_first_starter_transcript_as_written(tmp_path: Path) -> None:
    """next_starter first_starter: the kit's own table procedure starts every hand at seat 0."""
    outcomes, done = _profile_engine_runs(
        "starter-transcripts", ("dhumbal-first-starter-every-hand",), tmp_path
    )
    assert outcomes == {"passed": 1}, done.stdout[-4000:]
    assert done.returncode == 0


@pytest.mark.e2e
@needs_node
def test_kit_plays_the_no_first_offer_transcript_as_written(tmp_path: Path) -> None:
    """deal.first_offer none: the kit's own deal turns no card up (dealt.turned_up null) and
    refuses a pick from the absent offer; the first throw is the offer."""
    outcomes, done = _profile_engine_runs(
        "first-offer-transcripts", ("alankar-dhumbal-no-first-offer",), tmp_path
    )
    assert outcomes == {"passed": 2}, done.stdout[-4000:]
    assert done.returncode == 0


@pytest.mark.e2e
@needs_node
def test_kit_plays_the_offer_under_deck_transcript_as_written(tmp_path: Path) -> None:
    """deck_runs_out offer_under_deck: the kit's own table procedure puts a covered offer's
    untaken cards under the deck, as placed, instead of out of play."""
    outcomes, done = _profile_engine_runs(
        "under-deck-transcripts", ("dhumbal-offer-under-deck",), tmp_path
    )
    assert outcomes == {"passed": 1}, done.stdout[-4000:]
    assert done.returncode == 0


@pytest.mark.e2e
@needs_node
def test_kit_plays_the_card_under_kept_transcript_as_written(tmp_path: Path) -> None:
    """reshuffle.kept_aside offer_and_card_under: the kit's own table procedure keeps the
    previous throw's top card out of the new deck, beside the throw just made."""
    outcomes, done = _profile_engine_runs(
        "card-under-transcripts", ("dhumbal-card-under-kept",), tmp_path
    )
    assert outcomes == {"passed": 1}, done.stdout[-4000:]
    assert done.returncode == 0


@pytest.mark.e2e
@needs_node
def test_kit_plays_the_empty_draw_transcript_as_written(tmp_path: Path) -> None:
    """deck_runs_out_when draw_finds_deck_empty: the kit's own table procedure plays on past
    the deck's last card and ends the hand at a draw from the empty deck."""
    outcomes, done = _profile_engine_runs(
        "empty-draw-transcripts", ("dhumbal-deck-out-ends-at-draw",), tmp_path
    )
    assert outcomes == {"passed": 1}, done.stdout[-4000:]
    assert done.returncode == 0


@pytest.mark.e2e
@needs_node
def test_kit_plays_the_beaten_call_transcripts_as_written(tmp_path: Path) -> None:
    """scoring.beaten_call caller_hand_times (with beaten_factor) and penalty_only: the
    profile test engine, which scores for the kit (its score_round hook), passes both
    variants' oracle transcripts as written and their derived runs."""
    outcomes, done = _profile_engine_runs(
        "beaten-call-transcripts",
        ("yaniv-israel-asaf-hand-doubled", "yaniv-israel-asaf-fixed-30"),
        tmp_path,
    )
    assert outcomes == {"passed": 4}, done.stdout[-4000:]
    assert done.returncode == 0


@pytest.mark.e2e
@needs_node
def test_kit_plays_the_tied_lowest_transcripts_as_written(tmp_path: Path) -> None:
    """scoring.beaten_others score_own_hands_but_lowest and score_own_hands_but_beaters: the
    profile test engine, which scores for the kit, spares every other hand as low as the
    winner's, or every hand that beats the call, after a beaten call."""
    outcomes, done = _profile_engine_runs(
        "tied-lowest-transcripts",
        ("yaniv-israel-tied-lowest-score-nothing", "yaniv-israel-beaters-score-nothing"),
        tmp_path,
    )
    assert outcomes == {"passed": 4}, done.stdout[-4000:]
    assert done.returncode == 0


@pytest.mark.e2e
@needs_node
def test_kit_plays_the_multi_throw_scope_transcripts_as_written(tmp_path: Path) -> None:
    """pick.multi_throw_scope: the kit's own table procedure keeps multi_throwers for the turn,
    the hand or the game; each reading's oracle transcript passes as written under it."""
    assert NODE is not None
    check_scope_outcomes(scope_outcomes(profile_engine_command(), tmp_path))


@pytest.mark.e2e
@needs_node
def test_kit_plays_the_jokers_only_transcript_as_written(tmp_path: Path) -> None:
    """card_values.only_jokers: the profile test engine values hands by the kit's
    profileHandValue, a hand of jokers only at -5 a joker, and passes the oracle transcript."""
    outcomes, done = _profile_engine_runs(
        "joker-value-transcripts", ("yaniv-israel-jokers-only-minus-5",), tmp_path
    )
    assert outcomes == {"passed": 1}, done.stdout[-4000:]
    assert done.returncode == 0


@pytest.mark.e2e
@needs_node
def test_kit_plays_the_multiples_for_transcript_as_written(tmp_path: Path) -> None:
    """scoring.multiples_for own_hand: the profile test engine, which scores for the kit,
    drops a multiple of 50 only where the seat's own hand added points."""
    outcomes, done = _profile_engine_runs(
        "multiples-transcripts", ("yaniv-israel-drop-50-own-hand",), tmp_path
    )
    assert outcomes == {"passed": 1}, done.stdout[-4000:]
    assert done.returncode == 0
