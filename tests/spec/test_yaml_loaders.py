"""The strict YAML loader over both parsers: libyaml's (C) and PyYAML's pure-Python one."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance.spec import yamlsafe

ROOT = Path(__file__).resolve().parents[2]
PARSERS = {"c": getattr(yaml, "CSafeLoader", None), "python": yaml.SafeLoader}


@pytest.fixture(params=sorted(PARSERS))
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    chosen = PARSERS[request.param]
    if chosen is None:
        pytest.skip("PyYAML was built without libyaml")
    monkeypatch.setattr(yamlsafe, "_Parser", chosen)
    monkeypatch.setattr(yamlsafe, "_PLAIN", {})  # nothing carried over from the other parser
    return str(request.param)


def test_libyaml_is_used_where_present() -> None:
    if PARSERS["c"] is None:
        pytest.skip("PyYAML was built without libyaml")
    assert yamlsafe._Parser is yaml.CSafeLoader


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: 1\nb: 2\na: 3\n", "f.yaml:3: duplicate key 'a' (first on line 1)"),
        ("a: &x 1\nb: *x\n", "f.yaml:1: anchor &x is not allowed (no anchors or aliases)"),
        ("a: 1\nb: *x\n", "f.yaml:2: alias *x is not allowed (no anchors or aliases)"),
        ("a: !!python/object 1\n", "f.yaml:1: tag !!python/object is not allowed"),
        ("a: !!set {x: null}\n", "f.yaml:1: tag !!set is not allowed"),
        ("a: {x: 1}\nb:\n  <<: {y: 2}\n", "f.yaml:3: merge keys (<<) are not allowed"),
        ("a: " + "[" * 70 + "]" * 70 + "\n", "f.yaml:1: nesting deeper than 64 levels"),
        ("? [1]\n: 2\n", "f.yaml:1: mapping keys must be plain scalars"),
        ("1.5: x\n", "f.yaml:1: mapping key '1.5' must be a string, integer or boolean"),
        ("a: 1\n---\nb: 2\n", "f.yaml:2: expected a single YAML document"),
    ],
)
def test_the_same_refusals_with_either_parser(parser: str, text: str, message: str) -> None:
    with pytest.raises(yamlsafe.YamlProblem) as info:
        yamlsafe.loads(text, "f.yaml")
    assert str(info.value) == message


@pytest.mark.parametrize(("text", "line"), [("a: [1, 2\nb: 3\n", 2), ("a:\n\tb: 1\n", 2)])
def test_syntax_errors_name_file_and_line_with_either_parser(
    parser: str, text: str, line: int
) -> None:
    with pytest.raises(yamlsafe.YamlProblem) as info:
        yamlsafe.loads(text, "f.yaml")
    assert str(info.value).startswith(f"f.yaml:{line}: YAML syntax error: ")


def test_a_node_bomb_is_refused_with_either_parser(
    parser: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(yamlsafe, "MAX_NODES", 50)
    text = "a: [" + ", ".join(["1"] * 60) + "]\n"
    with pytest.raises(yamlsafe.YamlProblem) as info:
        yamlsafe.loads(text, "f.yaml")
    assert str(info.value) == "f.yaml:1: more than 50 YAML nodes in one file"


def _tree(loc: yamlsafe._Loc) -> object:
    return (loc.line, {key: _tree(child) for key, child in loc.children.items()})


def test_both_parsers_load_every_shipped_file_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    if PARSERS["c"] is None:
        pytest.skip("PyYAML was built without libyaml")
    files = sorted((ROOT / "conformance" / "transcripts").glob("*.yaml"))
    files += sorted((ROOT / "specs").rglob("*.yaml"))
    assert len(files) > 100
    for path in files:
        loaded = []
        for chosen in (PARSERS["c"], PARSERS["python"]):
            monkeypatch.setattr(yamlsafe, "_Parser", chosen)
            doc = yamlsafe.load(path)
            assert not isinstance(doc._root, list)  # a location tree, as loaded
            loaded.append((doc.data, _tree(doc._root)))
        assert loaded[0] == loaded[1], path
