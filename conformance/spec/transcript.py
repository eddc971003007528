"""Transcripts: scripted hands with the outcomes the rules demand (docs/transcripts.md)."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reference_engine.cards import DECK, JOKER_NAME, RANKS, full_deck
from reference_engine.errors import JhyapError
from reference_engine.profile import resolve
from reference_engine.rules import packs_at

from . import data, filecache, memo, protocol, readings, yamlsafe
from .deal_layout import with_deal_layouts
from .profiles import Problem, load_profile, rule_defaults, stringify_keys

if TYPE_CHECKING:  # imported when a transcript is checked, not to read a cached one
    import jsonschema

CARD_NAMES = [str(c) for c in DECK]
RANK_SYMBOLS = RANKS
# A transcript's deck: (packs, jokers per pack), with a third item, the rank symbols each
# pack leaves out (e.g. "K"), only for a pack that leaves ranks out.
Deck = tuple[int, int] | tuple[int, int, str]
_CANONICAL = {name: i for i, name in enumerate([*CARD_NAMES, JOKER_NAME])}
ACTION_KEYS = ("call", "throw", "pick", "timeout")


@dataclass(frozen=True)
class Expect:
    """What an action step must produce: an error code, or events (or just acceptance)."""

    error: str | None = None
    events: tuple[Mapping[str, Any], ...] | None = None
    seq_given: bool = False  # whether the transcript states the answer's seq
    seq: int | None = None


@dataclass(frozen=True)
class Step:
    """One step: a protocol request to send, or a state check."""

    index: int
    line: int
    kind: str  # deal, act, reshuffle, set_option, end_game, check, raw, legal, start
    request: Mapping[str, Any] | None  # protocol request without seq; None for check, raw
    check: Mapping[str, Any] | None = None
    expect: Expect = field(default_factory=Expect)
    starter: int | None = None  # for a deal given by hands: the starter the engine must report
    clauses: tuple[str, ...] = ()  # the clauses this step checks; () means the transcript's
    raw: Mapping[str, Any] | None = None  # a raw step: text, json (+ add_seq) or oversize
    legal: Any = None  # a legal step: the expected answer (null outside a turn)
    start_options: Mapping[str, Any] | None = None  # a start step's replacement options
    start_seats: int | None = None  # a start step's replacement seat count
    deal: Mapping[str, Any] | None = None  # a deal step's spec as written (hands or order)

    def describe(self) -> str:
        if self.kind == "check":
            return "check " + ", ".join(self.check or {})
        if self.kind == "raw":
            spec = self.raw or {}
            if "oversize" in spec:
                return f"a state request padded to {spec['oversize']} bytes"
            if "text" in spec:
                return str(spec["text"])
            return json.dumps(spec.get("json"), separators=(",", ":"))
        if self.kind == "legal":
            return "legal: " + json.dumps(self.legal, separators=(",", ":"))
        if self.kind == "start":
            options = "" if self.start_options is None else f" options {dict(self.start_options)}"
            seats = "" if self.start_seats is None else f" seats {self.start_seats}"
            return f"start{options}{seats}"
        return json.dumps(self.request, separators=(",", ":"))


@dataclass(frozen=True)
class Transcript:
    id: str
    title: str
    kind: str
    file: Path
    line: int
    seats: int
    clauses: tuple[str, ...]
    steps: tuple[Step, ...]
    profiles: tuple[str, ...] = ()
    where: Mapping[str, Any] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    requires: tuple[str, ...] = ()
    description: str = ""
    start_error: str | None = None  # the table itself must be refused with this code
    raw: Mapping[str, Any] = field(default_factory=dict)
    fresh_engine: bool = False  # a new engine process, and no start before the steps
    # (packs, jokers per pack[, ranks left out]) the deals are written for
    deck: Deck = (1, 0)

    def location(self, step: Step | None = None) -> str:
        return f"{self.file}:{step.line if step else self.line}"


class TranscriptError(Exception):
    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = list(problems)


@cache
def _schema_validator() -> jsonschema.protocols.Validator:
    import jsonschema

    schema = json.loads((data.schema_dir() / "transcript.schema.json").read_text("utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def canonical(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=lambda c: _CANONICAL.get(c, 99))


def deck_names(packs: int = 1, jokers: int = 0, left_out: str = "") -> list[str]:
    """Every card name of a deck of ``packs`` packs with ``jokers`` jokers each, without the
    ranks ``left_out`` (rank symbols, e.g. ``"K"``), in order."""
    gone = [RANK_SYMBOLS.index(rank) + 1 for rank in left_out]
    return [str(c) for c in full_deck(packs, jokers, gone)]


def table_deck(rules: Mapping[str, Any], seats: int) -> Deck:
    """(packs, jokers per pack) a table of ``seats`` plays with under resolved ``rules``, and
    the ranks each pack leaves out as a third item when it leaves some out."""
    steps = rules["deck"].get("packs_by_seats") or ()
    packs = packs_at(((st["from_seats"], st["packs"]) for st in steps), seats)
    left_out = _left_out(rules["deck"].get("ranks_left_out"))
    if left_out:
        return packs, int(rules["deck"]["jokers"]), left_out
    return packs, int(rules["deck"]["jokers"])


def _left_out(ranks: Iterable[str] | None) -> str:
    """Rank symbols in rank order, as one string: ``["K", "Q"]`` is ``"QK"``."""
    return "".join(sorted(set(ranks or ()), key=RANK_SYMBOLS.index))


def deck_header(deck: Deck) -> dict[str, Any]:
    """A transcript's ``deck:`` for ``deck``."""
    header: dict[str, Any] = {"packs": deck[0], "jokers": deck[1]}
    if len(deck) == 3:
        header["left_out"] = list(deck[2])
    return header


def deck_words(deck: Deck) -> str:
    """``deck`` in words, for messages: ``2 packs of 49 cards without K, 1 joker each``."""
    packs, jokers = deck[0], deck[1]
    left_out = deck[2] if len(deck) == 3 else ""
    words = f"{packs} pack{'' if packs == 1 else 's'} of {52 - 4 * len(left_out) + jokers} cards"
    if left_out:
        words += f" without {' '.join(left_out)}"
    if not jokers:
        return words + ", no jokers"
    return words + f", {jokers} joker{'' if jokers == 1 else 's'}" + (" each" if packs > 1 else "")


def expand_deal(spec: Mapping[str, Any], deck: Deck = (1, 0)) -> list[str]:
    """The whole card order of a deal step (see docs/transcripts.md).

    ``deck`` is (packs, jokers per pack[, ranks left out]): the cards not named follow in
    pack order.
    """
    if "order" in spec:
        return list(spec["order"])
    hands = {int(seat): list(cards) for seat, cards in spec["hands"].items()}
    seats = sorted(hands)
    total = max(seats) + 1 if seats else 0
    starter = int(spec["starter"])
    order_of_play = sorted(seats, key=lambda s: (s - starter) % max(total, starter + 1))
    size = max(len(h) for h in hands.values())
    order: list[str] = []
    for i in range(size):
        for seat in order_of_play:
            if i < len(hands[seat]):
                order.append(hands[seat][i])
    order.append(spec["turned_up"])
    order.extend(spec.get("deck") or [])
    left = Counter(deck_names(*deck))
    left.subtract(order)
    for name in dict.fromkeys(deck_names(*deck)):
        order.extend([name] * max(0, left[name]))
    return order


def _action(act: Mapping[str, Any]) -> dict[str, Any]:
    if "call" in act:
        return {"type": "call"}
    if "throw" in act:
        return {"type": "throw", "cards": list(act["throw"])}
    if "timeout" in act:
        return {"type": "timeout"}
    pick = act["pick"]
    if pick == "deck":
        return {"type": "pick", "from": "deck"}
    return {"type": "pick", "from": "offer", "card": pick}


def raw_line(spec: Mapping[str, Any], seq: int) -> tuple[bytes, int | None]:
    """The bytes of a raw step's line (without newline), and the seq the harness put in it."""
    if "text" in spec:
        return str(spec["text"]).encode("utf-8"), None
    if "oversize" in spec:
        head = json.dumps({"seq": seq, "cmd": "state"}, separators=(",", ":"))
        return (head[:-1] + " " * (int(spec["oversize"]) - len(head)) + "}").encode(), seq
    value = spec["json"]
    if isinstance(value, dict) and "seq" not in value and spec.get("add_seq", True):
        value = {"seq": seq, **value}
        put: int | None = seq
    else:
        put = None
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"), put


def _build_step(index: int, raw: Mapping[str, Any], line: int, deck: Deck = (1, 0)) -> Step:
    step = _build_step_kind(index, raw, line, deck)
    clauses = tuple(raw.get("clauses") or ())
    # Most steps name no clauses of their own: the default, without a copy of the step.
    return replace(step, clauses=clauses) if clauses else step


def _build_step_kind(index: int, raw: Mapping[str, Any], line: int, deck: Deck = (1, 0)) -> Step:
    expect_raw = raw.get("expect") or {}
    expect = Expect(
        error=expect_raw.get("error"),
        events=tuple(expect_raw["events"]) if "events" in expect_raw else None,
        seq_given="seq" in expect_raw,
        seq=expect_raw.get("seq"),
    )
    if "raw" in raw:
        return Step(index, line, "raw", None, expect=expect, raw=dict(raw["raw"]))
    if "legal" in raw:
        return Step(index, line, "legal", {"cmd": "legal"}, legal=raw["legal"])
    if "start" in raw:
        spec = raw["start"] or {}
        return Step(
            index,
            line,
            "start",
            {"cmd": "start"},
            expect=expect,
            start_options=spec.get("options"),
            start_seats=spec.get("seats"),
        )
    if "deal" in raw:
        spec = raw["deal"]
        return Step(
            index,
            line,
            "deal",
            {"cmd": "deal", "deck": expand_deal(spec, deck)},
            expect=expect,
            starter=spec.get("starter"),
            deal=spec,
        )
    if "act" in raw:
        act = raw["act"]
        return Step(
            index,
            line,
            "act",
            {"cmd": "act", "seat": act["seat"], "action": _action(act)},
            expect=expect,
        )
    if "reshuffle" in raw:
        return Step(
            index,
            line,
            "reshuffle",
            {"cmd": "reshuffle", "order": list(raw["reshuffle"])},
            expect=expect,
        )
    if "set_option" in raw:
        opt = raw["set_option"]
        return Step(
            index,
            line,
            "set_option",
            {"cmd": "set_option", "name": opt["name"], "value": opt["value"]},
            expect=expect,
        )
    if "end_game" in raw:
        return Step(index, line, "end_game", {"cmd": "end_game"}, expect=expect)
    return Step(index, line, "check", None, check=dict(raw["check"]))


@cache
def _fast_schema_check() -> Callable[[Any], bool] | None:
    from .fastschema import compile_document

    return compile_document(_schema_validator().schema)


def _schema_problems(doc: yamlsafe.YamlDocument, value: Any) -> list[Problem]:
    from .fastschema import library_errors

    errors = library_errors(_fast_schema_check(), _schema_validator(), value)
    problems = []
    for error in sorted(errors, key=lambda e: list(e.path)):
        path = [p for p in error.path]
        where = yamlsafe.format_path(path) or "(top)"
        problems.append(Problem(doc.file, doc.line(path), where, _schema_message(error)))
    return problems


def _schema_message(error: jsonschema.ValidationError) -> str:
    if error.validator == "additionalProperties":
        return error.message.replace("Additional properties are not allowed", "unknown key")
    if error.validator == "anyOf" and not error.absolute_path:
        return "needs 'profiles', 'where' or both (profiles narrowed by where)"
    if error.validator == "oneOf" and isinstance(error.instance, dict):
        return (
            "expected exactly one step kind (deal, act, reshuffle, set_option, end_game, "
            "check, raw, legal, start), or one form of it"
            if "steps" in str(error.absolute_path) or error.absolute_path
            else f"needs exactly one of 'profiles' or 'where': {error.message}"
        )
    return error.message


Documents = Mapping[str, Mapping[str, Any]]


def load_transcript(path: str | Path, documents: Documents | None = None) -> Transcript:
    """Load and validate one transcript file; TranscriptError lists every problem."""
    problems, transcript = _load(Path(path), documents)
    if problems or transcript is None:
        raise TranscriptError(problems)
    return transcript


def check_transcript_file(
    path: str | Path,
    documents: Documents | None = None,
    *,
    doc: yamlsafe.YamlDocument | None = None,
    context: str | None = None,
) -> list[Problem]:
    """Every problem of one transcript file; ``documents`` default to the shipped profiles.

    ``doc``: the file, already loaded; ``context``: ``documents_context(documents)``,
    computed once for many files."""
    return _load(Path(path), documents, context, doc)[0]


def documents_context(documents: Documents | None) -> str | None:
    """What a transcript's check depends on besides its file: the profiles and the protocol
    clauses (None when they cannot be loaded: the check reports that, and nothing is
    cached)."""
    try:
        profiles = _shipped_fingerprint() if documents is None else filecache.fingerprint(documents)
        return f"{profiles}:{filecache.fingerprint(list(protocol.protocol_clause_ids()))}"
    except Exception:
        return None


@cache
def _shipped_fingerprint() -> str:
    return filecache.fingerprint(shipped_documents())


def _load(
    path: Path,
    documents: Documents | None = None,
    context: str | None = None,
    doc: yamlsafe.YamlDocument | None = None,
) -> tuple[list[Problem], Transcript | None]:
    """The problems of one transcript file and, when there are none, the transcript.

    A file that checked clean before, with the same bytes, path and profiles, comes
    from the cache (:mod:`conformance.spec.filecache`) without being parsed again."""
    entry = None
    known: _Known | None = None
    where = os.path.abspath(path)
    kept_as = (os.fspath(path), where)  # a transcript names its file as it was given
    content = filecache.read_file(path)
    if content is not None:
        if context is None:
            context = documents_context(documents)
        known = _MEMO.get(kept_as, content)
        if known is not None and context is not None and context in known.clean:
            return [], known.transcript
        if context is not None:
            # The absolute path: validate and run name the same file differently, one entry.
            entry = filecache.key("transcript", content, where, context)
        if known is not None and known.doc is not None:
            return _check_known(known, documents, context, entry)
        hit = filecache.get(entry, content) if entry is not None else None
        if isinstance(hit, dict):
            try:
                transcript = _transcript(path, hit["value"], hit["line"], hit["steps"])
            except (KeyError, TypeError, ValueError, IndexError):
                pass  # an entry this code does not understand: check afresh
            else:
                assert context is not None
                if known is None:
                    known = _Known(content, None, hit["value"], transcript, hit["steps"])
                    _MEMO.put(kept_as, known)
                known.clean.add(context)
                return [], known.transcript
    parsed = None
    if doc is None and content is not None:
        # Parsed and schema-checked before, whatever the profiles: only the checks that
        # read the profiles run again (a run under another ruleset rereads no YAML).
        parsed = filecache.key("transcript-parsed", content, where)
        hit = filecache.get(parsed, content)
        if isinstance(hit, dict):
            with contextlib.suppress(KeyError, TypeError, ValueError, AttributeError):
                doc = yamlsafe.document_from_tree(os.fspath(path), hit["value"], hit["lines"])
    if doc is not None and parsed is not None:
        value = doc.data  # cached as checked
    else:
        if doc is None:
            try:
                doc = yamlsafe.load(path)
            except yamlsafe.YamlProblem as exc:
                return [Problem(exc.file, exc.line, "(file)", exc.message)], None
        value = stringify_keys(doc.data)
        if not isinstance(value, dict):
            return [Problem(doc.file, 1, "(top)", "a transcript is a mapping")], None
        problems = _schema_problems(doc, value)
        if problems:
            return problems, None
        if parsed is not None:
            tree = yamlsafe.document_tree(doc)
            filecache.put(parsed, {"value": value, "lines": tree}, content)
    step_lines = [doc.line(["steps", i]) for i in range(len(value.get("steps") or []))]
    transcript = _transcript(path, value, doc.line(["id"]), step_lines)
    if content is not None:
        clean = set(known.clean) if known is not None else set()
        known = _Known(content, doc, value, transcript, step_lines, clean)
        _MEMO.put(kept_as, known)
        return _check_known(known, documents, context, entry)
    problems = _semantic_problems(doc, value, transcript, documents)
    return problems, (None if problems else transcript)


@dataclass
class _Known:
    """A transcript file parsed and schema-checked in this process, and the contexts
    (``documents_context``) under which it checked clean."""

    content: bytes
    doc: yamlsafe.YamlDocument | None  # None: read from a cache entry of the whole check
    value: dict[str, Any]
    transcript: Transcript
    step_lines: list[int]
    clean: set[str] = field(default_factory=set)


class _Memo:
    """The transcript files this process parsed, by the path given and the absolute path
    (a transcript names its file as it was given), the most recently used kept up to a
    bound on their bytes: a process that loads the corpus again (under another ruleset)
    neither parses nor reads the cache again. Off with the cache (``JHYAP_CACHE_DIR=off``):
    then every load parses."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self._known: OrderedDict[tuple[str, str], _Known] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, path: tuple[str, str], content: bytes) -> _Known | None:
        if self.bound <= 0 or filecache.cache_dir() is None:
            return None
        with self._lock:
            known = self._known.get(path)
            if known is None or known.content != content:
                return None
            self._known.move_to_end(path)
            return known

    def put(self, path: tuple[str, str], known: _Known) -> None:
        if len(known.content) > self.bound or filecache.cache_dir() is None:
            return
        with self._lock:
            old = self._known.pop(path, None)
            self._size += len(known.content) - (len(old.content) if old else 0)
            self._known[path] = known
            while self._size > self.bound:
                _, dropped = self._known.popitem(last=False)
                self._size -= len(dropped.content)

    def clear(self) -> None:
        with self._lock:
            self._known.clear()
            self._size = 0


# Nothing kept unless the process asks (``keep_parsed``): a command reads each file once,
# and a parsed file holds several times its bytes, so keeping them would make its memory
# grow with the corpus up to the bound.
_MEMO = _Memo(0)


def keep_parsed(bound: int) -> None:
    """Keep the transcript files this process parses, the most recently used up to
    ``bound`` bytes of source (0: none, the default), for a process that loads the same
    corpus many times (under many rulesets, as the test suite does)."""
    _MEMO.bound = bound
    if bound <= 0:
        _MEMO.clear()


def _check_known(
    known: _Known, documents: Documents | None, context: str | None, entry: str | None = None
) -> tuple[list[Problem], Transcript | None]:
    """The problems of a parsed file under ``documents``: none when it checked clean under
    the same context before (``entry``: the cache entry to write when clean)."""
    if context is not None and context in known.clean:
        return [], known.transcript
    assert known.doc is not None
    problems = _semantic_problems(known.doc, known.value, known.transcript, documents)
    if problems:
        return problems, None
    if context is not None:
        known.clean.add(context)
        if entry is not None:
            value = {"value": known.value, "line": known.transcript.line, "steps": known.step_lines}
            filecache.put(entry, value, known.content)
    return [], known.transcript


def load_checked(
    path: Path, documents: Documents | None, context: str | None
) -> tuple[list[Problem], Transcript | None]:
    """The problems of one transcript file and, when there are none, the transcript;
    ``context``: ``documents_context(documents)``, computed once for many files."""
    return _load(path, documents, context)


def _transcript(
    path: Path, value: dict[str, Any], line: int, step_lines: Sequence[int]
) -> Transcript:
    """The transcript of schema-valid data, with the lines of its id and of each step."""
    deck_raw = value.get("deck") or {}
    packs, jokers = int(deck_raw.get("packs", 1)), int(deck_raw.get("jokers", 0))
    left_out = _left_out(deck_raw.get("left_out"))
    deck: Deck = (packs, jokers, left_out) if left_out else (packs, jokers)
    built = [_build_step(i, r, step_lines[i], deck) for i, r in enumerate(value.get("steps") or [])]
    steps = with_deal_layouts(built, value["seats"])  # protocol 1.1: the deal's layout too
    return Transcript(
        id=value["id"],
        title=value["title"],
        kind=value["kind"],
        file=path,
        line=line,
        seats=value["seats"],
        clauses=tuple(value["clauses"]),
        steps=steps,
        profiles=tuple(value.get("profiles") or ()),
        where=value.get("where"),
        options=value.get("options") or {},
        requires=tuple(value.get("requires") or ()),
        description=value.get("description", ""),
        start_error=value.get("start_error"),
        raw=value,
        fresh_engine=bool(value.get("fresh_engine", False)),
        deck=deck,
    )


def rebuild(
    transcript: Transcript, value: dict[str, Any], lines: Sequence[int] | None = None
) -> Transcript:
    """``transcript`` made anew from changed data (same file and id line); ``lines``: the
    line of each step, by default those of the transcript's steps."""
    step_lines = list(lines) if lines is not None else [s.line for s in transcript.steps]
    return _transcript(transcript.file, value, transcript.line, step_lines)


# -- selection -------------------------------------------------------------------


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


def _deck_of(rules: Mapping[str, Any], seats: int) -> Deck | None:
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
            and _deck_of(resolved["rules"], transcript.seats) == transcript.deck
        ):
            selected.append(pid)
    return selected


def with_profile_files(
    documents: Documents, names: Sequence[str]
) -> tuple[dict[str, Mapping[str, Any]], list[str]]:
    """``documents`` plus the profile files among ``names``; and ``names`` as profile ids.

    A name that is an existing file (or ends in .yaml/.yml) is loaded as a profile, so a
    variant's own transcripts can name it by its id. ProfileFileError if it is invalid.
    """
    merged = dict(documents)
    ids = []
    for name in names:
        if Path(name).is_file() or name.endswith((".yaml", ".yml")):
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
    return dict(_clause_owners(documents if documents is not None else shipped_documents()))


@memo.by_identity()
def _clause_owners(documents: Mapping[str, Mapping[str, Any]]) -> Mapping[str, str]:
    """``all_clause_ids``, remembered for the last few mappings (not to be changed): the
    corpus checks every transcript against the same one."""
    owners = {
        c["id"]: readings.base_id(doc)
        for doc in documents.values()
        for c in doc.get("clauses") or []
    }
    return {**owners, **dict.fromkeys(protocol.protocol_clause_ids(), protocol.OWNER)}


# -- semantic checks ---------------------------------------------------------------


def _semantic_problems(
    doc: yamlsafe.YamlDocument,
    value: Mapping[str, Any],
    transcript: Transcript,
    given: Documents | None = None,
) -> list[Problem]:
    problems: list[Problem] = []

    def add(path: Sequence[str | int], message: str) -> None:
        problems.append(
            Problem(doc.file, doc.line(path), yamlsafe.format_path(path) or "(top)", message)
        )

    if Path(doc.file).stem != transcript.id:
        add(["id"], f"id {transcript.id!r} must match the file name {Path(doc.file).name!r}")
    try:
        documents = given if given is not None else shipped_documents()
    except Exception as exc:  # a broken shipped profile is reported by validating specs/
        add(["profiles"], f"cannot load the shipped profiles: {exc}")
        return problems
    for i, pid in enumerate(transcript.profiles):
        if pid not in documents:
            add(
                ["profiles", i],
                f"no profile {pid!r}; known: {', '.join(sorted(documents))}",
            )
    # A transcript may test only an alternative reading, and is checked under every reading.
    given_documents = documents
    documents = readings.with_alternatives(documents)
    selected = profiles_for(transcript, documents)
    if not selected and not problems:
        add(
            ["where" if transcript.where else "profiles"],
            "selects no profile, under any reading (check the condition and the options)",
        )
    # Alternative readings share their profile's seats: check each profile once. A ruleset
    # given to a run (a declared-readings file, a variant) is checked only where the
    # transcript names it: under any other it runs, derived or not applicable, never refused.
    shipped = shipped_documents() if given is not None else given_documents
    checked = [
        p for p in selected if p in given_documents and (p in shipped or p in transcript.profiles)
    ]
    for pid in checked or [p for p in selected if p not in given_documents]:
        try:
            resolved = (
                resolve(documents[pid], transcript.options)
                if transcript.options
                else documents[pid]
            )
        except JhyapError as exc:
            add(["options"], f"under {pid}: {exc.message}")
            continue
        seats = resolved["rules"]["seats"]
        inside = seats["min"] <= transcript.seats <= seats["max"]
        played = _deck_of(resolved["rules"], transcript.seats)
        if inside and played != transcript.deck and transcript.steps:
            header = deck_header(played or (1, 0))
            written = ", ".join(f"{k}: {v}".replace("'", "") for k, v in header.items())
            add(
                ["deck"],
                f"{pid} plays {transcript.seats} seats with {deck_words(played or (1, 0))};"
                f" say so with deck: {{{written}}}",
            )
        if not inside and transcript.start_error is None:
            add(
                ["seats"],
                f"{transcript.seats} seats is outside {pid}'s {seats['min']}-{seats['max']}"
                " (a transcript about a refused table says so with start_error)",
            )
    if transcript.start_error is not None and transcript.steps:
        add(["steps"], "a transcript whose table is refused (start_error) has no steps")
    clause_owner = _clause_owners(documents)
    families = {readings.base_id(documents[pid]) for pid in selected}
    for i, clause in enumerate(transcript.clauses):
        owner = clause_owner.get(clause)
        if owner is None:
            add(["clauses", i], f"no clause {clause!r} in any shipped profile or the protocol")
        elif selected and owner not in families and owner != protocol.OWNER:
            add(
                ["clauses", i],
                f"clause {clause!r} belongs to {owner}, which this transcript does not run under",
            )
    for step in transcript.steps:
        for j, clause in enumerate(step.clauses):
            if clause not in clause_owner:
                add(
                    ["steps", step.index, "clauses", j],
                    f"no clause {clause!r} in any shipped profile or the protocol",
                )
            elif clause not in transcript.clauses:
                add(
                    ["steps", step.index, "clauses", j],
                    f"clause {clause!r} is not among the transcript's clauses",
                )
    _check_steps(value.get("steps") or [], transcript, add)
    return problems


# State fields no rule gives a meaning once the game is over; engines report them differently.
UNCHECKABLE_AFTER_GAME = ("starter", "dealer")


def _check_steps(steps: Sequence[Mapping[str, Any]], transcript: Transcript, add: Any) -> None:
    in_hand = False
    dealt = False
    game_over = False
    started = not transcript.fresh_engine
    for i, raw in enumerate(steps):
        refused = "error" in (raw.get("expect") or {})
        events = (raw.get("expect") or {}).get("events") or []
        if "check" in raw and game_over:
            for name in UNCHECKABLE_AFTER_GAME:
                if name in raw["check"]:
                    add(
                        ["steps", i, "check", name],
                        f"{name} means nothing once the game is over; do not check it",
                    )
        game_over = game_over or any(
            isinstance(e, Mapping) and e.get("type") == "game_ended" for e in events
        )
        if any(isinstance(e, Mapping) and e.get("type") == "round_ended" for e in events):
            in_hand = False  # a hand may end without a call (the deck ran out)
        if "start" in raw:
            if not refused:
                started, in_hand, dealt, game_over = True, False, False, False
            continue
        if not started and ("check" in raw or "legal" in raw or (not refused and "raw" not in raw)):
            kind = next(k for k in raw if k not in ("expect", "note", "clauses"))
            add(["steps", i, kind], "before the table is started a step must expect an error")
        if "seq" in (raw.get("expect") or {}) and "raw" not in raw:
            add(["steps", i, "expect", "seq"], "only a raw step may state the answer's seq")
        if "deal" in raw:
            spec = raw["deal"]
            _check_deal(spec, transcript.seats, ["steps", i, "deal"], add, transcript.deck)
            if in_hand and not refused:
                add(["steps", i, "deal"], "a deal in the middle of a hand (no call ended it)")
            in_hand = in_hand or not refused
            dealt = True
        elif "act" in raw:
            act = raw["act"]
            if not dealt:
                add(["steps", i, "act"], "an action before any deal")
            if not 0 <= act["seat"] < transcript.seats and not refused:
                add(
                    ["steps", i, "act", "seat"],
                    f"no seat {act['seat']} at {transcript.seats} seats",
                )
            cards = list(act.get("throw") or []) + (
                [act["pick"]] if "pick" in act and act["pick"] != "deck" else []
            )
            for card in cards:
                if card not in _CANONICAL and not refused:
                    add(["steps", i, "act"], f"{card!r} is not a card")
            if "call" in act and not refused:
                in_hand = False
        elif "reshuffle" in raw:
            order = raw["reshuffle"]
            if transcript.deck == (1, 0) and len(set(order)) != len(order):
                add(["steps", i, "reshuffle"], "a card appears twice in the reshuffle order")
        elif ("set_option" in raw or "end_game" in raw) and in_hand and not refused:
            key = "set_option" if "set_option" in raw else "end_game"
            add(["steps", i, key], f"{key} during a hand must expect an error (wrong_phase)")


def _check_deal(
    spec: Mapping[str, Any],
    seats: int,
    path: list[str | int],
    add: Any,
    deck: Deck = (1, 0),
) -> None:
    all_names = deck_names(*deck)
    if "order" in spec:
        order = spec["order"]
        if deck != (1, 0):
            if Counter(order) != Counter(all_names):
                add([*path, "order"], f"must hold the deck's {len(all_names)} cards")
            return
        if sorted(order) != sorted(CARD_NAMES):
            twice = sorted({c for c in order if order.count(c) > 1})
            add(
                [*path, "order"],
                "must hold the 52 cards once each"
                + (f"; twice: {' '.join(twice)}" if twice else ""),
            )
        return
    hands = spec["hands"]
    named: list[str] = [c for cards in hands.values() for c in cards]
    named.append(spec["turned_up"])
    named.extend(spec.get("deck") or [])
    available = Counter(all_names)
    seen: Counter[str] = Counter()
    for card in named:
        seen[card] += 1
        if seen[card] > available[card]:
            add(path, f"card {card} is dealt twice" if deck == (1, 0) else f"too many {card}")
    sizes = {len(cards) for cards in hands.values()}
    if len(sizes) > 1:
        add([*path, "hands"], "every hand must have the same number of cards")
    for seat in hands:
        if not 0 <= int(seat) < seats:
            add([*path, "hands", seat], f"no seat {seat} at {seats} seats")
    if str(spec["starter"]) not in {str(s) for s in hands}:
        add([*path, "starter"], f"starter {spec['starter']} is not dealt a hand")


def corpus_files(root: Path | None = None) -> list[Path]:
    """The transcript files under ``root`` (default: the shipped corpus), sorted: every
    ``*.yaml`` and ``*.yml`` file, as ``validate`` reads them and as profiles are named,
    so that every command reads the same files (a ``.yml`` transcript is run, exported
    and counted, not only validated)."""
    return data.files_under(root or data.transcripts_dir(), data.PROFILE_SUFFIXES)


def _is_regular_or_missing(path: Path) -> bool:
    """Whether ``path`` is a regular file (or cannot be looked at); a stat, never a read."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return True


def load_corpus(
    root: Path | None = None,
    documents: Documents | None = None,
    only: Callable[[str], bool] | None = None,
) -> tuple[list[Transcript], list[Problem]]:
    """Every transcript under ``root`` (default: the shipped corpus), and the problems found.

    With ``only``, just the files whose name (less ``.yaml``) it accepts are read: a
    transcript's id is its file name, so this selects transcripts by id unread."""
    transcripts: list[Transcript] = []
    problems: list[Problem] = []
    for found, transcript in iter_corpus(root, documents, only):
        problems.extend(found)
        if transcript is not None:
            transcripts.append(transcript)
    return transcripts, problems


def iter_corpus(
    root: Path | None = None,
    documents: Documents | None = None,
    only: Callable[[str], bool] | None = None,
) -> Iterator[tuple[list[Problem], Transcript | None]]:
    """``load_corpus`` one file at a time: the problems of each file read and, when it has
    none (and its id is new), its transcript; nothing is kept between files."""
    seen: dict[str, Path] = {}
    context = documents_context(documents)
    for path in corpus_files(root):
        if only is not None and not only(path.stem):
            if not _is_regular_or_missing(path):
                # refused even unselected: a FIFO or device in the corpus is bad input
                yield [Problem(str(path), 1, "(file)", "not a regular file")], None
            continue
        found, transcript = _load(path, documents, context)
        if transcript is not None and transcript.id in seen:
            problem = Problem(
                str(path),
                transcript.line,
                "id",
                f"id {transcript.id!r} is also used by {seen[transcript.id]}",
            )
            yield [*found, problem], None
            continue
        if transcript is not None:
            seen[transcript.id] = path
        yield found, transcript


__all__ = [
    "Expect",
    "Step",
    "Transcript",
    "TranscriptError",
    "canonical",
    "check_transcript_file",
    "corpus_files",
    "expand_deal",
    "iter_corpus",
    "keep_parsed",
    "load_checked",
    "load_corpus",
    "load_transcript",
    "profiles_for",
    "rebuild",
]
