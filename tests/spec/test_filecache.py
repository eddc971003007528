"""The cache's integrity and bounds: checksums, non-regular entries, size, sharing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.harness.runner import load_selection
from conformance.spec import declared, filecache, yamlsafe
from conformance.spec.profiles import ProfileFileError, load_profile
from conformance.spec.transcript import load_transcript

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "conformance" / "transcripts"
ONE = "shared-deal-order"


# Every load here is as in a new process: these tests are about the cache on disk.
pytestmark = pytest.mark.usefixtures("nothing_kept_in_memory")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("JHYAP_CACHE_DIR", str(folder))
    monkeypatch.delenv("JHYAP_CACHE_SIZE", raising=False)
    monkeypatch.setattr(filecache, "_known_size", {})
    return folder


def _copy(name: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(CORPUS / f"{name}.yaml", folder / f"{name}.yaml"))


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    parsed: list[str] = []
    real = yamlsafe.load

    def spy(path: str | os.PathLike[str]) -> object:
        if ROOT / "specs" not in Path(path).resolve().parents:
            parsed.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(yamlsafe, "load", spy)
    return parsed


def _transcript_entry(cache: Path, kind: str = "transcript") -> Path:
    (entry,) = (p for p in cache.glob(f"{kind}-*.json") if p.name.rsplit("-", 1)[0] == kind)
    return entry


def test_an_entry_edited_to_stay_valid_json_is_ignored_and_rebuilt(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _copy(ONE, tmp_path / "t")
    first = load_transcript(path)
    entry = _transcript_entry(cache)
    head, _, payload = entry.read_bytes().partition(b"\n")
    value = json.loads(payload)
    value["value"]["steps"] = value["value"]["steps"][:1]  # a run would check almost nothing
    value["steps"] = value["steps"][:1]
    entry.write_bytes(head + b"\n" + json.dumps(value).encode())
    # the parsed document too (kept whatever the profiles)
    parsed_entry = _transcript_entry(cache, "transcript-parsed")
    parsed_head, _, parsed_payload = parsed_entry.read_bytes().partition(b"\n")
    document = json.loads(parsed_payload)
    document["value"]["steps"] = document["value"]["steps"][:1]
    parsed_entry.write_bytes(parsed_head + b"\n" + json.dumps(document).encode())
    parsed = _parses(monkeypatch)
    again = load_transcript(path)
    assert again == first
    assert len(again.steps) == len(first.steps) > 1
    assert parsed == [f"{ONE}.yaml"]  # the entries failed their checksums: the file was read
    assert _transcript_entry(cache).read_bytes().partition(b"\n")[2] == payload  # rebuilt
    rebuilt = _transcript_entry(cache, "transcript-parsed").read_bytes().partition(b"\n")[2]
    assert rebuilt == parsed_payload
    load_transcript(path)
    assert parsed == [f"{ONE}.yaml"]  # and the rebuilt entry serves


def test_an_entry_from_other_source_bytes_or_another_name_is_refused(
    cache: Path, tmp_path: Path
) -> None:
    filecache.put("kind-a", {"x": 1}, b"source bytes")
    assert filecache.holds("kind-a", b"source bytes")
    assert filecache.get("kind-a", b"source bytes") == {"x": 1}
    assert not filecache.holds("kind-a", b"other bytes")
    assert filecache.get("kind-a", b"other bytes") is None
    assert not (cache / "kind-a.json").exists()  # removed, to be rebuilt
    filecache.put("kind-a", {"x": 1}, b"source bytes")
    shutil.copy(cache / "kind-a.json", cache / "kind-b.json")
    assert not filecache.holds("kind-b", b"source bytes")
    assert filecache.get("kind-b", b"source bytes") is None
    (cache / "kind-c.json").write_text('{"x": 1}')  # an entry without a header
    assert not filecache.holds("kind-c", b"source bytes")
    assert filecache.get("kind-c", b"source bytes") is None


@pytest.mark.e2e
def test_a_fifo_at_an_entry_name_is_skipped_not_opened_blocking(
    cache: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "t"
    _copy(ONE, folder)
    env = {**os.environ, "JHYAP_CACHE_DIR": str(cache)}
    command = [sys.executable, "-m", "conformance", "validate", str(folder)]
    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert first.stdout == "OK: 1 file valid\n"
    names = sorted(cache.glob("*.json"))
    assert {p.name.split("-")[0] for p in names} >= {"validated", "transcript"}
    for entry in names:
        entry.unlink()
        os.mkfifo(entry)
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert (again.returncode, again.stdout, again.stderr) == (0, "OK: 1 file valid\n", "")
    assert filecache.get(names[0].stem) is None  # in process too, at once
    assert not filecache.holds(names[0].stem)


def test_a_folder_at_an_entry_name_is_a_miss(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 41, item 7: IsADirectoryError in validate and run.
    folder = tmp_path / "t"
    _copy(ONE, folder)
    assert main(["validate", str(folder)]) == 0
    names = sorted(cache.glob("*.json"))
    assert {p.name.split("-")[0] for p in names} >= {"validated", "transcript"}
    for entry in names:
        entry.unlink()
        entry.mkdir()
    assert main(["validate", str(folder)]) == 0
    assert capsys.readouterr().out == "OK: 1 file valid\nOK: 1 file valid\n"
    assert [t.id for t in load_selection(str(folder)).transcripts] == [ONE]
    assert filecache.get(names[0].stem) is None
    assert not filecache.holds(names[0].stem)
    assert all(entry.is_dir() for entry in names)  # not removed: only files are


def test_a_run_after_validate_is_warm(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "t"
    _copy(ONE, folder)
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "t"]) == 0  # a relative path; the run names it absolutely
    capsys.readouterr()
    parsed = _parses(monkeypatch)
    selection = load_selection(str(folder))
    assert [t.id for t in selection.transcripts] == [ONE]
    assert parsed == []


def test_the_cache_has_no_entry_count_cap(cache: Path) -> None:
    for n in range(5_100):
        filecache.put(f"entry-{n}", n, b"")
    assert len(list(cache.glob("*.json"))) == 5_100
    assert filecache.get("entry-0", b"") == 0


@pytest.mark.parametrize(
    ("text", "size"),
    [
        (None, filecache.DEFAULT_SIZE),
        ("1000", 1000),
        ("64K", 64 * 1024),
        ("200M", 200 * 1024**2),
        ("2GiB", 2 * 1024**3),
        ("lots", filecache.DEFAULT_SIZE),
        ("-5", filecache.DEFAULT_SIZE),
    ],
)
def test_the_size_knob(monkeypatch: pytest.MonkeyPatch, text: str | None, size: int) -> None:
    if text is None:
        monkeypatch.delenv("JHYAP_CACHE_SIZE", raising=False)
    else:
        monkeypatch.setenv("JHYAP_CACHE_SIZE", text)
    assert filecache.size_limit() == size


def test_the_code_fingerprint_covers_the_code_a_check_or_a_classification_runs() -> None:
    # The reference engine plays by the base package's table procedure: an entry kept
    # before that code changed must not be read after (a derived case's expectations).
    hashed = {p.relative_to(ROOT).as_posix() for p in filecache.code_files(ROOT / "schema")}
    for folder in ("jhyap_core", "reference_engine", "conformance/spec"):
        modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / folder).glob("*.py")}
        assert modules and modules <= hashed, folder
    assert "schema/profile.schema.json" in hashed


VARIANT = "variant.yaml"
BASE_TEXT = (ROOT / "specs" / "dhumbal.yaml").read_text("utf-8")


def _declared_pair(folder: Path) -> Path:
    """A declared file extending a profile file next to it (a copy of dhumbal: a copy may
    keep a shipped id)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "base.yaml").write_text(BASE_TEXT, "utf-8")
    variant = folder / VARIANT
    variant.write_text(
        "profile_format: 1\nid: my-variant\nextends: base.yaml\n"
        "rules:\n  scoring:\n    beaten_penalty: 30\n",
        "utf-8",
    )
    return variant


def test_a_declared_profile_is_kept_whole_and_read_back_without_resolving(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    variant = _declared_pair(tmp_path / "profiles")
    first = load_profile(variant)
    assert first["rules"]["scoring"]["beaten_penalty"] == 30
    assert len(list(cache.glob("profile-declared-*.json"))) == 1

    def unexpected(*args: object) -> None:
        raise AssertionError("resolved again")

    monkeypatch.setattr(declared, "resolve_declared", unexpected)
    assert load_profile(variant) == first


def test_a_declared_profile_whose_base_changed_is_resolved_again(
    cache: Path, tmp_path: Path
) -> None:
    variant = _declared_pair(tmp_path / "profiles")
    assert load_profile(variant)["name"].startswith("Dhumbal")
    base = tmp_path / "profiles" / "base.yaml"
    renamed = base.read_text("utf-8").replace("name: Dhumbal table", "name: Renamed table")
    base.write_text(renamed, "utf-8")
    assert load_profile(variant)["name"].startswith("Renamed")
    # and a base that is no longer valid is reported, not read from the entry
    base.write_text("id: my-base\n", "utf-8")
    with pytest.raises(ProfileFileError):
        load_profile(variant)
