"""Which profiles a transcript runs under, and who owns each clause id."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from jhyap_core.profile import resolve
from jhyap_core.vocabulary import JhyapError

from . import data, memo, protocol, readings
from .decks import Deck, table_deck
from .profiles import load_profile, rule_defaults
from .steps import Transcript

# Profile documents by id, as loaded (``load_profile``).
Documents = Mapping[str, Mapping[str, Any]]


@cache
def shipped_documents() -> dict[str, Mapping[str, Any]]:
    return {p.stem: load_profile(p) for p in data.shipped_profile_paths()}


def _matches(resolved: Mapping[str, Any], where: Mapping[str, Any]) -> bool:
    defaults = rule_defaults()
    for path, wanted in where.items():
        try:
            actual = readings.param_value(resolved, path)
        except KeyError:
            # A parameter a profile leaves out has the schema's default (today's behaviour).
            if path not in defaults:
                return False
            actual = defaults[path]
        choices = wanted if isinstance(wanted, list) else [wanted]
        if actual not in choices:
            return False
    return True


def deck_of(rules: Mapping[str, Any], seats: int) -> Deck | None:
    try:
        return table_deck(rules, seats)
    except (KeyError, TypeError):
        return None


def profiles_for(
    transcript: Transcript, documents: Mapping[str, Mapping[str, Any]] | None = None
) -> list[str]:
    """The profiles the transcript runs under: those it names (and the declared-readings
    profiles extending them), in its order, or every profile in id order; then only those
    whose resolved rules match ``where``."""
    documents = documents if documents is not None else shipped_documents()
    if transcript.profiles:
        named = [p for p in transcript.profiles if p in documents]
        named += [
            pid
            for pid in sorted(documents)
            if pid not in named and readings.base_id(documents[pid]) in transcript.profiles
        ]
    else:
        named = sorted(documents)
    if transcript.where is None:
        return named
    selected = []
    for pid in named:
        # Only the rules are matched: resolving without the clauses copies far less.
        document = documents[pid]
        rules_only: dict[str, Any] = {
            "rules": document.get("rules"),
            "options": document.get("options"),
        }
        try:
            # Without options the document's rules are already its defaults.
            resolved = resolve(rules_only, transcript.options) if transcript.options else rules_only
        except JhyapError:
            continue
        # A deal is written for one deck: a condition selects only tables playing it.
        if (
            _matches(resolved, transcript.where)
            and deck_of(resolved["rules"], transcript.seats) == transcript.deck
        ):
            selected.append(pid)
    return selected


def with_profile_files(
    documents: Documents, names: Sequence[str]
) -> tuple[dict[str, Mapping[str, Any]], list[str]]:
    """``documents`` plus the profile files among ``names``; and ``names`` as profile ids.

    A name that is an existing file or reads as a path (``data.looks_like_path``: a folder
    in it, a .yaml/.yml suffix) is loaded as a profile, so a variant's own transcripts can
    name it by its id. ProfileFileError if it is invalid; ProfileNotFound, saying what is
    there, for a path that is no file (``/dev/zero``, a folder, a named pipe).
    """
    merged = dict(documents)
    ids = []
    for name in names:
        if Path(name).is_file() or data.looks_like_path(name):
            document = load_profile(name)
            merged[document["id"]] = document
            ids.append(str(document["id"]))
        else:
            ids.append(name)
    return merged, ids


def all_clause_ids(documents: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, str]:
    """Every clause ID of the shipped profiles, mapped to its profile id (the base
    profile's, for a declared-readings profile), and every protocol clause, mapped to
    ``protocol``."""
    return dict(clause_owners(documents if documents is not None else shipped_documents()))


@memo.by_identity()
def clause_owners(documents: Mapping[str, Mapping[str, Any]]) -> Mapping[str, str]:
    """``all_clause_ids``, remembered for the last few mappings (not to be changed): the
    corpus checks every transcript against the same one."""
    owners = {
        c["id"]: readings.base_id(doc)
        for doc in documents.values()
        for c in doc.get("clauses") or []
    }
    return {**owners, **dict.fromkeys(protocol.protocol_clause_ids(), protocol.OWNER)}
