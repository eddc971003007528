"""Loading only what is asked for, once: the content-keyed cache and -k selection."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.harness import cases as cases_module
from conformance.harness.runner import load_selection
from conformance.spec import filecache, yamlsafe
from conformance.spec import transcript as transcript_module
from conformance.spec.profiles import ProfileFileError, load_profile
from conformance.spec.steps import Transcript
from conformance.spec.transcript import (
    check_transcript_file,
    documents_context,
    load_corpus,
    load_transcript,
)
from conformance.spec.transcript_profiles import shipped_documents, with_profile_files

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "conformance" / "transcripts"
ONE = "shared-deal-order"
PROFILE_IDS = sorted(p.stem for p in (ROOT / "specs").glob("*.yaml"))


# Every load here is as in a new process: these tests are about the cache on disk (the last
# ones, about what a process keeps in memory, give it its memory back).
pytestmark = pytest.mark.usefixtures("nothing_kept_in_memory")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("JHYAP_CACHE_DIR", str(folder))
    return folder


def _copy(name: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(CORPUS / f"{name}.yaml", folder / f"{name}.yaml"))


def _count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the transcript files parsed from now on, in order."""
    parsed: list[str] = []
    real = yamlsafe.load

    def spy(path: str | os.PathLike[str]) -> object:
        # the transcripts, not the profiles or the protocol clause catalogue (specs/protocol/)
        if ROOT / "specs" not in Path(path).resolve().parents:
            parsed.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(yamlsafe, "load", spy)
    return parsed


def test_a_clean_transcript_is_parsed_once(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _copy(ONE, tmp_path / "t")
    parsed = _count_parses(monkeypatch)
    first = load_transcript(path)
    second = load_transcript(path)
    assert parsed == [f"{ONE}.yaml"]
    assert second == first
    kinds = sorted(p.name.rsplit("-", 1)[0] for p in cache.iterdir())
    # The transcript checked under these profiles, and parsed whatever the profiles; the
    # shipped profiles are kept too, unless this process had loaded them already.
    mine = ["transcript", "transcript-parsed"]
    assert kinds in (mine, ["profile"] * len(PROFILE_IDS) + mine)


def test_a_changed_file_is_checked_again(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _copy(ONE, tmp_path / "t")
    load_transcript(path)
    text = path.read_text("utf-8")
    path.write_text(text.replace(f"id: {ONE}", f"id: {ONE}x", 1), "utf-8")
    parsed = _count_parses(monkeypatch)
    problems = [str(p) for p in check_transcript_file(path)]
    assert parsed == [f"{ONE}.yaml"]
    assert problems == [f"{path}:1: id: id '{ONE}x' must match the file name '{ONE}.yaml'"]
    # A file with problems is never kept as checked: the same problems, found afresh, every
    # time (from its parsed document, which is kept: its YAML and schema are sound).
    assert [str(p) for p in check_transcript_file(path)] == problems
    assert parsed == [f"{ONE}.yaml"]


def test_the_same_bytes_under_other_profiles_are_checked_again(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _copy(ONE, tmp_path / "t")
    load_transcript(path)
    parsed = _count_parses(monkeypatch)
    problems = check_transcript_file(path, {"dhumbal": load_profile("dhumbal")})
    # The checks that read the profiles run again; the YAML is not read again (its data
    # and lines come from the cache), and the problem still names its line.
    assert parsed == []
    assert str(problems[0]) == f"{path}:12: profiles[0]: no profile 'dashain'; known: dhumbal"


def _paths(value: object, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    yield path
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, (*path, index))


def test_the_cached_lines_are_the_parsed_lines() -> None:
    """Every path of every shipped transcript (and one past each end) has the same line in
    a document rebuilt from its cached tree as in the parsed one."""
    checked = 0
    for file in sorted(CORPUS.rglob("*.yaml")):
        doc = yamlsafe.load(file)
        tree = json.loads(json.dumps(yamlsafe.document_tree(doc)))  # as the cache keeps it
        again = yamlsafe.document_from_tree(doc.file, doc.data, tree)
        for path in _paths(doc.data):
            for probe in (path, (*path, "missing"), (*path, 10_000)):
                assert again.line(probe) == doc.line(probe), (file.name, probe)
                checked += 1
    assert checked > 100_000


def test_a_cached_profile_is_the_checked_document(cache: Path, tmp_path: Path) -> None:
    first = load_profile("dhumbal")
    assert load_profile("dhumbal") == first
    broken = tmp_path / "broken.yaml"
    broken.write_text((ROOT / "specs" / "dhumbal.yaml").read_text("utf-8") + "extra: 1\n")
    line = len(broken.read_text("utf-8").splitlines())
    for _ in range(2):
        with pytest.raises(ProfileFileError) as info:
            load_profile(broken)
        assert [str(p) for p in info.value.problems] == [
            f"{broken}:{line}: extra: unknown key; expected one of: "
            "profile_format, id, name, summary, source, rules, options, clauses, "
            "readings, derived_from"
        ]


def test_an_unwritable_cache_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("JHYAP_CACHE_DIR", str(blocker / "cache"))
    path = _copy(ONE, tmp_path / "t")
    assert load_transcript(path).id == ONE
    assert load_transcript(path).id == ONE


def test_a_corrupt_entry_is_a_miss(cache: Path, tmp_path: Path) -> None:
    path = _copy(ONE, tmp_path / "t")
    first = load_transcript(path)
    for entry in cache.iterdir():
        entry.write_text('{"value": 3}')
    assert load_transcript(path) == first
    for entry in cache.iterdir():
        entry.write_text("{half")
    assert load_transcript(path) == first


def test_the_cache_can_be_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JHYAP_CACHE_DIR", "off")
    assert filecache.cache_dir() is None
    path = _copy(ONE, tmp_path / "t")
    parsed = _count_parses(monkeypatch)
    load_transcript(path)
    load_transcript(path)
    assert parsed == [f"{ONE}.yaml", f"{ONE}.yaml"]


def test_the_cache_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("JHYAP_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert filecache.cache_dir() == tmp_path / "jhyap"


def test_k_reads_only_the_transcript_it_names(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "t"
    _copy(ONE, folder)
    _copy("shared-not-your-turn", folder)
    (folder / "broken.yaml").write_text("id: broken\nsteps: [\n")
    parsed = _count_parses(monkeypatch)
    selection = load_selection(str(folder), ids=[ONE])
    assert parsed == [f"{ONE}.yaml"]
    assert [t.id for t in selection.transcripts] == [ONE]
    assert selection.corpus_ids == ("broken", ONE, "shared-not-your-turn")
    assert {c.transcript.id for c in selection.cases} == {ONE}


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the transcript files a selection's cases read from now on, in order."""
    read: list[str] = []
    real = transcript_module.load_checked

    def spy(path: Path, *args: Any) -> Any:
        read.append(path.name)
        return real(path, *args)

    monkeypatch.setattr(cases_module, "load_checked", spy)
    return read


def test_a_run_under_several_rulesets_reads_each_transcript_once(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "t"
    names = [ONE, "shared-not-your-turn"]
    paths = [_copy(name, folder) for name in names]
    monkeypatch.setattr(cases_module._Corpus, "_RECENT", 0)  # none kept but those held
    profiles = ["dhumbal", "bga-yaniv", "yaniv-israel"]
    read = _count_reads(monkeypatch)
    held = [(c.profile, c.transcript) for c in load_selection(str(folder), profiles).cases]
    assert read == [f"{name}.yaml" for name in names]
    assert [(p, t.id) for p, t in held] == [(p, name) for p in profiles for name in names]
    # The transcripts are held up to HOLD_BYTES of their files: with room for the first
    # only, the second is read again under each ruleset, into the same cases.
    monkeypatch.setattr(cases_module, "HOLD_BYTES", paths[0].stat().st_size)
    read.clear()
    again = [(c.profile, c.transcript) for c in load_selection(str(folder), profiles).cases]
    assert read == [f"{ONE}.yaml"] + ["shared-not-your-turn.yaml"] * len(profiles)
    assert again == held
    # Under one ruleset each transcript is asked for once: none is held.
    read.clear()
    assert len(load_selection(str(folder), profiles[:1]).cases[:]) == len(names)
    assert read == [f"{name}.yaml" for name in names]


def test_the_whole_corpus_still_reports_every_broken_file(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "t"
    _copy(ONE, folder)
    (folder / "broken.yaml").write_text("id: broken\nsteps: [\n")
    for _ in range(2):
        assert main(["run", "--transcripts", str(folder)]) == 2
        err = capsys.readouterr().err.splitlines()
        assert err[-1] == "jhyap run: 1 problem in the transcripts; nothing was run"
        assert err[0].startswith(f"{folder / 'broken.yaml'}:3: (file): YAML syntax error")


def test_the_corpus_from_the_cache_equals_the_corpus_checked(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, problems = load_corpus()
    assert problems == []
    parsed = _count_parses(monkeypatch)
    again, _ = load_corpus()
    assert parsed == []
    assert again == first


def test_validate_checks_a_clean_file_once_and_a_broken_one_every_time(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "t"
    _copy(ONE, folder)
    shutil.copy(ROOT / "specs" / "dhumbal.yaml", folder / "dhumbal.yaml")
    (folder / "broken.yaml").write_text("id: broken\nsteps: [\n")
    assert main(["validate", str(folder)]) == 1
    first = capsys.readouterr().out
    parsed = _count_parses(monkeypatch)  # every file parsed but the shipped profiles
    assert main(["validate", str(folder)]) == 1
    assert capsys.readouterr().out == first
    assert first.startswith(f"{folder / 'broken.yaml'}:3: (file): YAML syntax error")
    assert len(first.splitlines()) == 1
    assert parsed == ["broken.yaml"]


def test_the_cache_stays_bounded_by_size(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    entry = 1000  # bytes an entry takes on disk, header included
    filler = "x" * (entry - len(filecache._header("entry-0", b"", b'""')) - 2)
    monkeypatch.setenv("JHYAP_CACHE_SIZE", str(4 * entry))
    monkeypatch.setattr(filecache, "_known_size", {})
    for n in range(4):
        filecache.put(f"entry-{n}", filler, b"")
        os.utime(cache / f"entry-{n}.json", ns=(n * 10**9, n * 10**9))
    assert {(cache / f"entry-{n}.json").stat().st_size for n in range(4)} == {entry}
    # The fifth write took the cache past 4,000 bytes: the oldest went, down to 3,000.
    filecache.put("entry-4", filler, b"")
    assert sorted(p.name for p in cache.iterdir()) == [f"entry-{n}.json" for n in (2, 3, 4)]
    assert filecache.get("entry-4", b"") == filler
    assert filecache.get("entry-0", b"") is None


# -- what one process keeps in memory ---------------------------------------------------------


def _count_cache_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The kinds of cache entries read from now on."""
    read: list[str] = []
    real = filecache.get

    def spy(name: str, content: bytes) -> object:
        read.append(name.rsplit("-", 1)[0])
        return real(name, content)

    monkeypatch.setattr(filecache, "get", spy)
    return read


def test_a_process_loading_a_file_again_reads_neither_yaml_nor_cache(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transcript_module, "_MEMO", transcript_module._Memo(1_000_000))
    path = _copy(ONE, tmp_path / "t")
    first = load_transcript(path)
    others = {"dhumbal": load_profile("dhumbal")}
    parsed, read = _count_parses(monkeypatch), _count_cache_reads(monkeypatch)
    assert load_transcript(path) is first
    assert (parsed, read) == ([], [])
    # Under other profiles only the checks that read them run again, still with its lines.
    problems = check_transcript_file(path, others)
    assert str(problems[0]) == f"{path}:12: profiles[0]: no profile 'dashain'; known: dhumbal"
    assert (parsed, read) == ([], [])
    # Changed bytes are parsed again.
    path.write_text(path.read_text("utf-8") + "\n", "utf-8")
    again = load_transcript(path)
    assert parsed == [f"{ONE}.yaml"] and again == first and again is not first


def test_a_kept_file_clean_in_the_cache_under_other_profiles_is_not_built_again(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _copy(ONE, tmp_path / "t")
    variant = ROOT / "tests" / "data" / "variants" / "dhumbal-runs-of-four.yaml"
    others, _ = with_profile_files(shipped_documents(), [str(variant)])
    assert documents_context(others) != documents_context(None)
    # The cache on disk: the file clean under the shipped profiles and under these.
    first = load_transcript(path)
    assert check_transcript_file(path, others) == []
    monkeypatch.setattr(transcript_module, "_MEMO", transcript_module._Memo(1_000_000))
    first = load_transcript(path)  # kept, read from the cache of the shipped profiles' check
    built: list[str] = []
    real = transcript_module._transcript

    def spy(*args: Any) -> Transcript:
        built.append(str(args[0]))
        return real(*args)

    monkeypatch.setattr(transcript_module, "_transcript", spy)
    read = _count_cache_reads(monkeypatch)
    looked: list[str] = []
    real_holds = filecache.holds

    def holds(name: str, content: bytes) -> bool:
        looked.append(name.rsplit("-", 1)[0])
        return real_holds(name, content)

    monkeypatch.setattr(filecache, "holds", holds)
    assert check_transcript_file(path, others) == []
    # The entry on disk says clean under those profiles (looked at, not decoded): the kept
    # transcript, not rebuilt.
    assert (looked, read, built) == (["transcript"], [], [])
    assert load_transcript(path) is first


def test_the_files_kept_in_memory_are_bounded_by_their_bytes(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = ["shared-deal-order", "shared-card-values", "alankar-dhumbal-game"]
    paths = [_copy(name, tmp_path / "t") for name in names]
    sizes = [p.stat().st_size for p in paths]
    memo = transcript_module._Memo(sizes[1] + sizes[2])  # room for the last two only
    monkeypatch.setattr(transcript_module, "_MEMO", memo)
    for path in paths:
        load_transcript(path)
    kept = [p for p in paths if memo.get((str(p), os.path.abspath(p)), p.read_bytes())]
    assert kept == paths[1:]
    # The first file was dropped: read again from the cache on disk, not parsed.
    parsed, read = _count_parses(monkeypatch), _count_cache_reads(monkeypatch)
    load_transcript(paths[0])
    assert (parsed, read) == ([], ["transcript"])


def test_with_the_cache_off_a_process_keeps_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JHYAP_CACHE_DIR", "off")
    monkeypatch.setattr(transcript_module, "_MEMO", transcript_module._Memo(1_000_000))
    path = _copy(ONE, tmp_path / "t")
    parsed = _count_parses(monkeypatch)
    load_transcript(path)
    load_transcript(path)
    assert parsed == [f"{ONE}.yaml", f"{ONE}.yaml"]


@pytest.mark.e2e
def test_a_command_keeps_no_parsed_file(tmp_path: Path) -> None:
    """A process keeps parsed transcripts only when it asks (the test workers do): a
    command reads each file once, and kept files would grow its memory with the corpus."""
    path = _copy(ONE, tmp_path / "t")
    script = (
        "import sys\n"
        "from conformance.spec import filecache, transcript\n"
        "read = []\n"
        "real = filecache.get\n"
        "filecache.get = lambda name, content: read.append(name) or real(name, content)\n"
        "transcript.load_transcript(sys.argv[1])\n"
        "first = len(read)\n"
        "transcript.load_transcript(sys.argv[1])\n"
        "print(transcript._MEMO.bound, len(read) > first)\n"
    )
    env = {**os.environ, "JHYAP_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, env=env
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "0 True\n", "")
