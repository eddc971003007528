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
            loaded.append((doc.data, yamlsafe.document_tree(doc)))
        assert loaded[0] == loaded[1], path


def _event_built(text: str) -> yamlsafe.YamlDocument:
    """``text`` loaded by the event builder alone (the fast path off)."""
    builder = yamlsafe._Builder(text)
    try:
        data, root = builder.document()
    finally:
        builder.close()
    return yamlsafe.YamlDocument("f.yaml", data, root)


def test_the_fast_tree_is_the_event_builders_on_every_shipped_file() -> None:
    if PARSERS["c"] is None:
        pytest.skip("PyYAML was built without libyaml")
    files = sorted((ROOT / "conformance" / "transcripts").glob("*.yaml"))
    files += sorted((ROOT / "specs").rglob("*.yaml"))
    fast_loaded = 0
    for path in files:
        text = path.read_text("utf-8")
        fast = yamlsafe._fast_load(text)
        if fast is None:
            continue
        fast_loaded += 1
        built = _event_built(text)
        assert fast == (built.data, yamlsafe.document_tree(built)), path
    assert fast_loaded > 100  # the corpus loads by the fast path


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\nb: 2\na: 3\n",  # a duplicate key
        "a: 1\n'a': 2\n",  # the same key quoted
        "true: 1\n'true': 2\n",  # a boolean key and its text
        "a: {x: 1}\nb:\n  <<: {y: 2}\n",  # a merge key
        "a: " + "[" * 70 + "]" * 70 + "\n",  # too deep
        "? [1]\n: 2\n",  # a key that is no scalar
        "1.5: x\n",  # a float key
        "~: x\n",  # a null key
        "a: 1\n---\nb: 2\n",  # two documents
        "",  # nothing
        "a: [1, 2\nb: 3\n",  # a syntax error
    ],
)
def test_what_the_fast_tree_would_refuse_goes_to_the_event_builder(text: str) -> None:
    if PARSERS["c"] is None:
        pytest.skip("PyYAML was built without libyaml")
    assert yamlsafe._fast_load(text) is None


def test_the_fast_tree_keeps_lines_types_and_the_node_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if PARSERS["c"] is None:
        pytest.skip("PyYAML was built without libyaml")
    text = "id: x\nn: 3\ndate: 2024-01-01\nq: '1'\nlist:\n- 1.5\n- {a: null}\nyes: no\n"
    fast_loaded = yamlsafe._fast_load(text)
    assert fast_loaded == (
        {
            "id": "x",
            "n": 3,
            "date": "2024-01-01",
            "q": "1",
            "list": [1.5, {"a": None}],
            True: False,
        },
        [
            1,
            {
                "id": [1],
                "n": [2],
                "date": [3],
                "q": [4],
                "list": [5, {"0": [6], "1": [7, {"a": [7]}]}],
                "true": [8],
            },
        ],
    )
    doc = yamlsafe.loads(text, "f.yaml")
    assert doc.line("list[1].a") == 7 and doc.line("nothing.here") == 1
    # 17 nodes (keys, values, the items and the mappings): counted as the event builder does,
    # and refused by the fast path itself, at the line the event builder gives
    monkeypatch.setattr(yamlsafe, "MAX_NODES", 16)
    with pytest.raises(yamlsafe._TooManyNodes) as refused:
        yamlsafe._fast_load(text)
    assert refused.value.line == 8
    with pytest.raises(yamlsafe.YamlProblem) as info:
        yamlsafe.loads(text, "f.yaml")
    assert str(info.value) == "f.yaml:8: more than 16 YAML nodes in one file"
    monkeypatch.setattr(yamlsafe, "MAX_NODES", 17)
    assert yamlsafe._fast_load(text) is not None
