"""jhyap_core is the base: the standard library only; the kit and the reference engine
are built on it and neither imports the other; its vocabulary is the schemas' own."""

from __future__ import annotations

import ast
import json
import sys
from enum import StrEnum
from pathlib import Path

from jhyap_core.vocabulary import (
    ActionType,
    Command,
    ErrorCode,
    EventType,
    Phase,
    PickSource,
    RoundOutcome,
    ThrowKind,
)

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "schema" / "protocol"


def imported_roots(package: str) -> set[str]:
    """The top-level names every module of ``package`` imports (relative imports left out)."""
    roots: set[str] = set()
    for path in (ROOT / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                roots.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                roots.add(node.module.split(".")[0])
    return roots


def test_jhyap_core_imports_the_standard_library_only() -> None:
    outside = {
        name
        for name in imported_roots("jhyap_core")
        if name not in sys.stdlib_module_names and name not in ("__future__", "jhyap_core")
    }
    assert outside == set()


def test_the_kit_imports_neither_the_reference_engine_nor_the_harness() -> None:
    assert imported_roots("jhyap_kit") & {"reference_engine", "conformance"} == set()


def test_the_reference_engine_imports_neither_the_kit_nor_the_harness() -> None:
    assert imported_roots("reference_engine") & {"jhyap_kit", "conformance"} == set()


def _values(kind: type[StrEnum]) -> list[str]:
    return [member.value for member in kind]


def _enums(schema: object) -> list[list[object]]:
    """Every ``enum`` list of a schema, depth first."""
    found: list[list[object]] = []
    if isinstance(schema, dict):
        if isinstance(schema.get("enum"), list):
            found.append(schema["enum"])
        for value in schema.values():
            found += _enums(value)
    elif isinstance(schema, list):
        for value in schema:
            found += _enums(value)
    return found


def _consts(schema: object, key: str) -> set[str]:
    """Every ``const`` under a property named ``key``."""
    found: set[str] = set()
    if isinstance(schema, dict):
        for name, value in schema.items():
            if name == key and isinstance(value, dict) and isinstance(value.get("const"), str):
                found.add(value["const"])
            found |= _consts(value, key)
    elif isinstance(schema, list):
        for value in schema:
            found |= _consts(value, key)
    return found


def _schema(name: str) -> object:
    return json.loads((SCHEMA / name).read_text(encoding="utf-8"))


def test_the_vocabulary_is_the_schemas_own() -> None:
    enums = [
        e for name in sorted(p.name for p in SCHEMA.glob("*.json")) for e in _enums(_schema(name))
    ]
    assert _values(Phase) in enums
    assert _values(ThrowKind) in enums
    assert _values(PickSource) in enums
    assert _values(Command) in enums
    assert _values(ActionType) in enums
    assert _values(RoundOutcome) in enums
    assert sorted(_values(ErrorCode)) == sorted(
        _schema("error-codes.schema.json")["enum"]  # type: ignore[index]
    )
    assert set(_values(EventType)) == _consts(_schema("event.schema.json"), "type")


def protocol_version_homes(roots: tuple[Path, ...]) -> list[str]:
    """Every module under ``roots`` that binds PROTOCOL_VERSION to a value of its own."""
    homes: list[str] = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                targets = (
                    node.targets
                    if isinstance(node, ast.Assign)
                    else [node.target]
                    if isinstance(node, ast.AnnAssign) and node.value is not None
                    else []
                )
                if any(isinstance(t, ast.Name) and t.id == "PROTOCOL_VERSION" for t in targets):
                    homes.append(path.relative_to(root.parent).as_posix())
    return homes


def test_the_protocol_version_is_declared_once() -> None:
    packages = tuple(ROOT / name for name in ("jhyap_core", "reference_engine", "jhyap_kit"))
    assert protocol_version_homes((*packages, ROOT / "conformance")) == ["jhyap_core/vocabulary.py"]


def test_a_second_protocol_version_is_found(tmp_path: Path) -> None:
    copy = tmp_path / "harness"
    copy.mkdir()
    (copy / "client.py").write_text('PROTOCOL_VERSION: Final = "1.1"\n', encoding="utf-8")
    assert protocol_version_homes((copy,)) == ["harness/client.py"]


def public_api_problems(package: Path) -> list[str]:
    """What is wrong with ``package``'s ``__all__`` and those of its subpackages: one
    missing, or one that names modules but not every module of its folder."""
    problems: list[str] = []
    for init in sorted(package.rglob("__init__.py")):
        folder = init.parent
        if "node_modules" in folder.parts:
            continue
        names = None
        for node in ast.parse(init.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                names = set(ast.literal_eval(node.value))
        where = init.relative_to(package.parent).as_posix()
        if names is None:
            problems.append(f"{where}: no __all__")
            continue
        modules = {
            p.stem if p.is_file() else p.name
            for p in folder.iterdir()
            if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()
        }
        if names & modules and modules - names:
            problems.append(f"{where}: __all__ leaves out {sorted(modules - names)}")
    return problems


def test_every_package_names_its_public_api() -> None:
    packages = ("jhyap_core", "reference_engine", "jhyap_kit", "conformance")
    assert [p for name in packages for p in public_api_problems(ROOT / name)] == []


def test_a_module_left_out_of_all_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text('__all__ = ["a"]\n', encoding="utf-8")
    (package / "a.py").write_text("", encoding="utf-8")
    (package / "b.py").write_text("", encoding="utf-8")
    (package / "sub" / "__init__.py").write_text("", encoding="utf-8")
    assert public_api_problems(package) == [
        "pkg/__init__.py: __all__ leaves out ['b', 'sub']",
        "pkg/sub/__init__.py: no __all__",
    ]
