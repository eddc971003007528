"""A strict YAML loader that remembers where every value came from.

Built on PyYAML's parser events (libyaml's when present) and SafeLoader's
scalar types. It refuses, always as a ``YamlProblem``: duplicate mapping keys,
anchors and aliases (all of them, which also rules out alias bombs and merge
keys), every tag outside the JSON-like core (``str``, ``int``, ``float``,
``bool``, ``null``, ``seq``, ``map``), mapping keys that are not strings,
integers or booleans, nesting deeper than ``MAX_DEPTH``, more than ``MAX_NODES``
keys and values, files over ``MAX_BYTES`` or not regular, text that is not UTF-8,
and syntax errors (with their line).

Dates are not special: an unquoted ``2024-01-01`` loads as a string.

Paths into the data are tuples of keys and indices, or dotted text such as
``rules.call.limit`` or ``clauses[3].id``. Mapping keys in paths are the key's
source text (``false`` for the boolean key ``false``), which is also how
:func:`key_text` renders a loaded key.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.events import (
    AliasEvent,
    Event,
    MappingEndEvent,
    MappingStartEvent,
    NodeEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

MAX_BYTES = 5 * 1024 * 1024
MAX_DEPTH = 64
# Keys and values in one file. The longest recorded game has about 37,000; a bound keeps
# a file of a million one-character items (still under MAX_BYTES) from taking gigabytes.
MAX_NODES = 200_000

PathPart = str | int
DataPath = tuple[PathPart, ...]

_CORE = "tag:yaml.org,2002:"
_ALLOWED_TAGS = frozenset(_CORE + name for name in ("str", "int", "float", "bool", "null"))
_SEQ_TAG = _CORE + "seq"
_MAP_TAG = _CORE + "map"
_PATH_TOKEN = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


class YamlProblem(Exception):
    """Input the strict loader refuses: the file, a 1-based line and a message."""

    def __init__(self, file: str, line: int, message: str, path: DataPath | None = None) -> None:
        super().__init__(f"{file}:{line}: {message}")
        self.file = file
        self.line = line
        self.message = message
        self.path = path


class _Refusal(Exception):
    """Raised inside the builder; turned into a YamlProblem with the file name."""

    def __init__(self, line: int, message: str, path: DataPath | None) -> None:
        super().__init__(message)
        self.line = line
        self.message = message
        self.path = path


def key_text(key: object) -> str:
    """A mapping key as it appears in paths: booleans as ``true``/``false``."""
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def parse_path(path: str | Iterable[PathPart]) -> DataPath:
    """``"clauses[3].id"`` → ``("clauses", 3, "id")``; tuples pass through."""
    if not isinstance(path, str):
        return tuple(path)
    parts: list[PathPart] = []
    for match in _PATH_TOKEN.finditer(path):
        index, key = match.groups()
        parts.append(int(index) if index is not None else key)
    return tuple(parts)


def format_path(path: Iterable[PathPart]) -> str:
    """``("clauses", 3, "id")`` → ``"clauses[3].id"``; the empty path → ``""``."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text


@dataclass
class _Loc:
    """The source line of one value, and the locations of its children."""

    line: int
    children: dict[PathPart, _Loc] = field(default_factory=dict)


@dataclass(frozen=True)
class YamlDocument:
    """Loaded data and the source line of each part of it."""

    file: str
    data: Any
    _root: _Loc | list[Any]  # a location tree, or ``document_tree``'s JSON form of one

    def line(self, path: str | Iterable[PathPart] = ()) -> int:
        """The line of the value at ``path`` (the line of its key for mapping entries).

        Where the path leaves the data, the line of the deepest existing part:
        for a missing key, the line of its parent mapping.
        """
        loc = self._root
        if isinstance(loc, list):
            return _tree_line(loc, parse_path(path))
        for part in parse_path(path):
            child = loc.children.get(part)
            if child is None and isinstance(part, int):
                child = loc.children.get(str(part))
            if child is None:
                break
            loc = child
        return loc.line


def _tree_line(node: list[Any], parts: Iterable[PathPart]) -> int:
    """``YamlDocument.line`` over ``document_tree``'s form, where every key is text."""
    for part in parts:
        children = node[1] if len(node) > 1 else None
        child = children.get(str(part)) if children else None
        if child is None:
            break
        node = child
    return int(node[0])


def document_tree(doc: YamlDocument) -> list[Any]:
    """The source lines of ``doc`` as JSON data: ``[line, {key: tree}]`` (keys as text)."""

    def tree(loc: _Loc) -> list[Any]:
        return (
            [loc.line, {str(k): tree(c) for k, c in loc.children.items()}]
            if loc.children
            else [loc.line]
        )

    return doc._root if isinstance(doc._root, list) else tree(doc._root)


def document_from_tree(file: str, data: Any, lines: list[Any]) -> YamlDocument:
    """The document ``document_tree`` described, reading its lines from that form as they
    are asked for (a list index is found by its text too)."""
    return YamlDocument(file, data, lines)


class _Resolver(Resolver):
    """The YAML 1.1 implicit types less dates and ``=`` values."""


_Resolver.yaml_implicit_resolvers = {
    first: [
        (tag, regexp)
        for tag, regexp in resolvers
        if tag not in (_CORE + "timestamp", _CORE + "value")
    ]
    for first, resolvers in Resolver.yaml_implicit_resolvers.items()
}

_Parser: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# Plain untagged scalar text -> its loaded value (str, int, float, bool or None: all
# immutable, so sharing them is safe). Refused text is never stored.
_PLAIN: dict[str, Any] = {}
_PLAIN_MEMO_SIZE = 20_000
_UNKNOWN = object()


def _show_tag(tag: str) -> str:
    return "!!" + tag[len(_CORE) :] if tag.startswith(_CORE) else tag


def _line(event: Event) -> int:
    mark = event.start_mark
    return mark.line + 1 if mark is not None else 1


class _Builder:
    """Builds Python data and a location tree straight from parser events."""

    def __init__(self, text: str) -> None:
        self._parser = _Parser(text)
        self._resolver = _Resolver()
        self._constructor = SafeConstructor()
        self._nodes = 0

    def close(self) -> None:
        self._parser.dispose()

    def _next(self) -> Event:
        event: Event = self._parser.get_event()
        return event

    def document(self) -> tuple[Any, _Loc]:
        self._next()  # StreamStartEvent
        event = self._next()
        if isinstance(event, StreamEndEvent):
            return None, _Loc(1)
        value, loc = self._node((), None)
        self._next()  # DocumentEndEvent
        event = self._next()
        if not isinstance(event, StreamEndEvent):
            raise _Refusal(_line(event), "expected a single YAML document", None)
        return value, loc

    def _tag(
        self, event: NodeEvent, kind: type[Node], allowed: Iterable[str], path: DataPath
    ) -> str:
        tag: str | None = getattr(event, "tag", None)
        if tag is None or tag == "!":
            value = event.value if isinstance(event, ScalarEvent) else None
            implicit = getattr(event, "implicit", None)
            tag = self._resolver.resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
        assert tag is not None
        if tag not in allowed:
            if tag == _CORE + "merge":
                message = "merge keys (<<) are not allowed"
            else:
                message = f"tag {_show_tag(tag)} is not allowed"
            raise _Refusal(_line(event), message, path)
        return tag

    def _node(self, path: DataPath, key_line: int | None) -> tuple[Any, _Loc]:
        event = self._next()
        line = key_line if key_line is not None else _line(event)
        if isinstance(event, AliasEvent):
            raise _Refusal(
                _line(event), f"alias *{event.anchor} is not allowed (no anchors or aliases)", path
            )
        if not isinstance(event, NodeEvent):
            raise _Refusal(_line(event), "unexpected YAML event", path)
        if event.anchor is not None:
            raise _Refusal(
                _line(event), f"anchor &{event.anchor} is not allowed (no anchors or aliases)", path
            )
        if len(path) > MAX_DEPTH:
            raise _Refusal(_line(event), f"nesting deeper than {MAX_DEPTH} levels", path)
        self._nodes += 1
        if self._nodes > MAX_NODES:
            raise _Refusal(_line(event), f"more than {MAX_NODES} YAML nodes in one file", None)
        if isinstance(event, ScalarEvent):
            return self._scalar(event, path), _Loc(line)
        if isinstance(event, SequenceStartEvent):
            self._tag(event, SequenceNode, (_SEQ_TAG,), path)
            return self._sequence(path, line)
        if isinstance(event, MappingStartEvent):
            self._tag(event, MappingNode, (_MAP_TAG,), path)
            return self._mapping(path, line)
        raise _Refusal(_line(event), "unexpected YAML event", path)

    def _scalar(self, event: ScalarEvent, path: DataPath) -> Any:
        if event.tag is None:
            # Untagged scalars are most of a file. One that is not plain (quoted, block)
            # is a string; a plain one resolves by its text alone, so the same text loads
            # the same value.
            if not event.implicit[0]:
                return event.value
            known = _PLAIN.get(event.value, _UNKNOWN)
            if known is not _UNKNOWN:
                return known
        tag = self._tag(event, ScalarNode, _ALLOWED_TAGS, path)
        node = ScalarNode(tag, event.value, None, None, event.style)
        try:
            value = self._constructor.construct_object(node, deep=True)
        except Exception as exc:  # a bad int/float literal, too many digits, ...
            raise _Refusal(_line(event), f"bad {_show_tag(tag)} value: {exc}", path) from None
        if event.tag is None and len(_PLAIN) < _PLAIN_MEMO_SIZE:
            _PLAIN[event.value] = value
        return value

    def _sequence(self, path: DataPath, line: int) -> tuple[Any, _Loc]:
        items: list[Any] = []
        loc = _Loc(line)
        while not self._parser.check_event(SequenceEndEvent):
            index = len(items)
            value, child = self._node((*path, index), None)
            items.append(value)
            loc.children[index] = child
        self._next()
        return items, loc

    def _mapping(self, path: DataPath, line: int) -> tuple[Any, _Loc]:
        result: dict[Any, Any] = {}
        loc = _Loc(line)
        seen: dict[str, int] = {}
        while not self._parser.check_event(MappingEndEvent):
            event = self._parser.peek_event()
            key_line = _line(event)
            if not isinstance(event, ScalarEvent):
                if isinstance(event, AliasEvent | NodeEvent):
                    self._node((*path, "<key>"), None)  # refuses aliases and anchors first
                raise _Refusal(key_line, "mapping keys must be plain scalars", path)
            key_path: DataPath = (*path, str(event.value))
            key, _ = self._node(key_path, None)
            if not isinstance(key, str | int):
                raise _Refusal(
                    key_line,
                    f"mapping key {event.value!r} must be a string, integer or boolean",
                    key_path,
                )
            text = key_text(key)
            key_path = (*path, text)
            if text in seen or key in result:
                first = seen.get(text, loc.line)
                raise _Refusal(
                    key_line, f"duplicate key {text!r} (first on line {first})", key_path
                )
            seen[text] = key_line
            value, child = self._node(key_path, key_line)
            result[key] = value
            loc.children[text] = child
        self._next()
        return result, loc


class _Slow(Exception):
    """The fast path met what only the event builder words: it loads the text instead."""


class _TooManyNodes(Exception):
    """The fast path met node ``MAX_NODES + 1`` at ``line``, everything before it accepted:
    the event builder would refuse it there, with its line and no path, after building the
    whole tree again; the fast path words it the same itself."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


def _fast_load(text: str) -> tuple[Any, list[Any]] | None:
    """The data and its lines, in ``document_tree``'s form (the one tree built), from the
    parser's events; or None when the text holds anything the event builder refuses or
    treats specially (an anchor, an alias, an explicit tag, a key that is no plain value,
    a duplicate key, too deep, a syntax error, no document or two): the event builder then
    loads it and words the refusal. So this path accepts exactly what the event builder
    accepts, builds the same values and lines, and words one problem only, too many nodes
    (raising _TooManyNodes where the event builder would refuse them); it only leaves out
    the paths, the location objects and their conversion."""
    parser = _Parser(text)
    try:
        get = parser.get_event
        get()  # StreamStartEvent
        if get().__class__ is StreamEndEvent:
            return None  # an empty stream: the event builder's
        loaded = _FastEvents(get).value(get(), 0, None)
        get()  # DocumentEndEvent
        if get().__class__ is not StreamEndEvent:
            return None
        return loaded
    except _TooManyNodes:
        raise
    except Exception:  # _Slow, a YAML error, anything: the event builder says what
        return None
    finally:
        parser.dispose()


class _FastEvents:
    """Values and their lines straight from parser events, for :func:`_fast_load`."""

    def __init__(self, get: Any) -> None:
        self.get = get
        self.nodes = 0
        self.constructor = SafeConstructor()

    def value(self, event: Any, depth: int, key_line: int | None) -> tuple[Any, list[Any]]:
        kind = event.__class__
        if depth > MAX_DEPTH or event.anchor is not None:
            raise _Slow
        self.nodes += 1
        if self.nodes > MAX_NODES:  # counted, as the event builder does, after the depth
            raise _TooManyNodes(_line(event))
        line = key_line if key_line is not None else _line(event)
        if kind is ScalarEvent:
            return self.scalar(event), [line]
        get = self.get
        if kind is SequenceStartEvent:
            if event.tag not in (None, "!", _SEQ_TAG):
                raise _Slow
            items: list[Any] = []
            lines: dict[str, Any] = {}
            while (item := get()).__class__ is not SequenceEndEvent:
                value, lines[str(len(items))] = self.value(item, depth + 1, None)
                items.append(value)
            return items, ([line, lines] if lines else [line])
        if kind is MappingStartEvent:
            if event.tag not in (None, "!", _MAP_TAG):
                raise _Slow
            result: dict[Any, Any] = {}
            children: dict[str, Any] = {}
            while (key_event := get()).__class__ is not MappingEndEvent:
                if key_event.__class__ is not ScalarEvent or key_event.anchor is not None:
                    raise _Slow
                if depth + 1 > MAX_DEPTH:
                    raise _Slow
                self.nodes += 1
                if self.nodes > MAX_NODES:
                    raise _TooManyNodes(_line(key_event))
                key = self.scalar(key_event)
                if not isinstance(key, str | int):
                    raise _Slow
                text = key_text(key)
                if text in children or key in result:
                    raise _Slow  # a duplicate key
                key_at = _line(key_event)
                result[key], children[text] = self.value(get(), depth + 1, key_at)
            return result, ([line, children] if children else [line])
        raise _Slow  # an alias, or no node at all

    def scalar(self, event: Any) -> Any:
        if event.tag is not None:
            raise _Slow  # an explicit tag: the event builder checks it
        if not event.implicit[0]:
            return event.value  # quoted or block: a string
        text = event.value
        known = _PLAIN.get(text, _UNKNOWN)
        if known is not _UNKNOWN:
            return known
        tag = _RESOLVE(ScalarNode, text, event.implicit)  # type: ignore[no-untyped-call]
        if tag not in _ALLOWED_TAGS:
            raise _Slow
        try:
            value = self.constructor.construct_object(ScalarNode(tag, text), deep=True)
        except Exception:
            raise _Slow from None
        if len(_PLAIN) < _PLAIN_MEMO_SIZE:
            _PLAIN[text] = value
        return value


_RESOLVE = _Resolver().resolve


def _line_at(text: str, position: int) -> int:
    return text.count("\n", 0, max(position, 0)) + 1


def loads(text: str, file: str = "<string>") -> YamlDocument:
    """Load YAML text strictly; raises YamlProblem for anything refused."""
    try:
        loaded = _fast_load(text)
    except _TooManyNodes as refusal:
        message = f"more than {MAX_NODES} YAML nodes in one file"
        raise YamlProblem(file, refusal.line, message) from None
    if loaded is not None:
        return YamlDocument(file, *loaded)
    try:
        builder = _Builder(text)
        try:
            data, root = builder.document()
        finally:
            builder.close()
    except _Refusal as refusal:
        raise YamlProblem(file, refusal.line, refusal.message, refusal.path) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        context = exc.context
        if context and exc.context_mark is not None and exc.context_mark.line + 1 != line:
            context += f" (from line {exc.context_mark.line + 1})"
        detail = "; ".join(part for part in (context, exc.problem) if part)
        raise YamlProblem(file, line, f"YAML syntax error: {detail or exc}") from None
    except yaml.reader.ReaderError as exc:
        position = exc.position if isinstance(exc.position, int) else 0
        raise YamlProblem(
            file, _line_at(text, position), f"unreadable character: {exc.reason}"
        ) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(file, 1, f"YAML error: {exc}") from None
    except RecursionError:
        raise YamlProblem(file, 1, "YAML nested too deeply") from None
    return YamlDocument(file, data, root)


def load_bytes(raw: bytes, file: str = "<bytes>") -> YamlDocument:
    """Load UTF-8 YAML bytes strictly (a UTF-8 byte-order mark is allowed)."""
    if len(raw) > MAX_BYTES:
        raise YamlProblem(file, 1, f"file is larger than {MAX_BYTES} bytes")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise YamlProblem(
            file, line, f"not UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start}"
        ) from None
    return loads(text, file)


def read_regular_file(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a regular file of at most MAX_BYTES; YamlProblem otherwise. Anything
    but a regular file is refused unread: a FIFO would block for ever."""
    file = os.fspath(path)
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as handle:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise YamlProblem(file, 1, "not a regular file")
            if info.st_size > MAX_BYTES:
                raise YamlProblem(file, 1, f"file is larger than {MAX_BYTES} bytes")
            return handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise YamlProblem(file, 1, f"cannot read file: {exc.strerror or exc}") from None


def load(path: str | os.PathLike[str]) -> YamlDocument:
    """Load a YAML file strictly; raises YamlProblem (also for unreadable or huge files)."""
    return load_bytes(read_regular_file(path), os.fspath(path))


# -- writing: a transcript as YAML (jhyap record, jhyap fuzz) --


class _FlowMap(dict[str, Any]):
    """A mapping written on one line: each expected event reads as one line of the file."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(
    _FlowMap, lambda dumper, data: dumper.represent_mapping("tag:yaml.org,2002:map", data, True)
)


def transcript_yaml(data: dict[str, Any]) -> str:
    """The transcript as YAML, its events one a line."""
    for step in data.get("steps") or []:
        events = step.get("expect", {}).get("events")
        if events is not None:
            step["expect"]["events"] = [_FlowMap(event) for event in events]
    return yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=100,
        default_flow_style=None,
    )
