"""The shared kit vectors (tests/data/kit_vectors.json): cases both kits must pass, read and
played here for the Python kit and the reference engine; the JavaScript kit's runner is
kits/javascript/test/vectors.test.mjs.

A case opens a table of one of the file's profiles (``rules``: dotted parameters changed,
``options``: the profile's options replaced), bound by a binding that plays the profile's
own rules (here :class:`ObjectApiEngine`, the reference's rule functions) and declares
``RULES`` = the file's ``binding`` with the case's ``binding`` over it (``"ANY"`` or the
values). ``kit_defaults`` names the hooks whose kit default the binding keeps; ``kits``,
when present, the kits the case is for. Each request (``seq`` added in order, ``profile``
added to ``start``) has the answer expected without its ``seq``; an error's message is
checked by its start (``message_starts``: the parameter or option it names).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jhyap_core.serving import Session
from jhyap_kit import ANY, RuleSupport, TrackedEngine
from reference_engine.server import Session as ReferenceSession
from tests.kit_engines.object_api import ObjectApiEngine

VECTORS = Path(__file__).resolve().parents[2] / "tests" / "data" / "kit_vectors.json"

Json = Any


def load() -> dict[str, Json]:
    data: dict[str, Json] = json.loads(VECTORS.read_text("utf-8"))
    return data


def case_profile(vectors: Mapping[str, Json], case: Mapping[str, Json]) -> dict[str, Json]:
    """The profile ``start`` sends: the named profile with the case's changes."""
    profile: dict[str, Json] = copy.deepcopy(vectors["profiles"][case["profile"]])
    for path, value in case.get("rules", {}).items():
        *sections, key = path.split(".")
        node = profile["rules"]
        for section in sections:
            node = node.setdefault(section, {})
        node[key] = copy.deepcopy(value)
    if "options" in case:
        profile["options"] = copy.deepcopy(case["options"])
    return profile


def binding_rules(vectors: Mapping[str, Json], case: Mapping[str, Json]) -> RuleSupport:
    declared = {**vectors["binding"], **case.get("binding", {})}
    return {path: ANY if v == "ANY" else tuple(v) for path, v in declared.items()}


def binding_for(vectors: Mapping[str, Json], case: Mapping[str, Json]) -> TrackedEngine:
    """The vectors' binding in the Python kit: the reference's rule functions behind every
    hook but those of ``kit_defaults``, which keep the kit's default."""
    hooks: dict[str, Any] = {
        name: getattr(TrackedEngine, name) for name in case.get("kit_defaults", ())
    }
    binding = type(
        "VectorBinding", (ObjectApiEngine,), {"RULES": binding_rules(vectors, case), **hooks}
    )
    engine: TrackedEngine = binding()
    return engine


def requests(vectors: Mapping[str, Json], case: Mapping[str, Json]) -> list[dict[str, Json]]:
    """The case's requests as sent: ``seq`` in order, the profile in every ``start``."""
    sent = []
    for seq, step in enumerate(case["requests"]):
        request = {"seq": seq, **step["send"]}
        if request["cmd"] == "start":
            request["profile"] = case_profile(vectors, case)
        sent.append(request)
    return sent


def python_session(vectors: Mapping[str, Json], case: Mapping[str, Json]) -> Session:
    engine = binding_for(vectors, case)
    return Session(engine, engine.info())


def reference_session() -> Session:
    return ReferenceSession()


def plain(answer: Mapping[str, Json]) -> dict[str, Json]:
    """An answer without its ``seq``, as JSON reads it back."""
    data: dict[str, Json] = json.loads(json.dumps(answer))
    data.pop("seq", None)
    return data


def matches(expected: Mapping[str, Json], answer: Mapping[str, Json]) -> bool:
    got = plain(answer)
    if "error" not in expected:
        return got == expected
    error = got.get("error", {})
    wanted = expected["error"]
    return (
        got.get("ok") is False
        and set(got) == {"ok", "error"}
        and error.get("code") == wanted["code"]
        and str(error.get("message", "")).startswith(wanted["message_starts"])
    )


def mismatches(
    session: Session, vectors: Mapping[str, Json], case: Mapping[str, Json]
) -> list[str]:
    """Every request whose answer is not the one expected, shown with both."""
    found = []
    for request, step in zip(requests(vectors, case), case["requests"], strict=True):
        answer = session.handle(request)
        if not matches(step["answer"], answer):
            found.append(f"{request}\n  expected {step['answer']}\n  got      {plain(answer)}")
    return found
