"""An adapter written to the previous release's docs (protocol 1.0): it wraps the reference
engine but keeps each behaviour docs/versions.md lists as changed since.

* an option range with max null: read as "no value above the default";
* an option whose ``sets`` is a list: not applied from start.options (only strings are);
* a rule parameter it does not know: dropped silently instead of unsupported_profile;
* start's seats checked before the profile and the options;
* an array or object option value: invalid_option_value instead of bad_request;
* a seq below 0 or above 2^53 - 1: served and echoed;
* legal throws: longest first.

It plays the regular smoke hand correctly, and says it speaks protocol 1.0.
"""

import json
import sys
from typing import Any

from _common import JhyapError, decode_request, record_pid, respond, write

from reference_engine.parameters import registry
from reference_engine.server import Session

MAX_SEQ = 2**53 - 1


def refuse(request: dict[str, Any], code: str, message: str) -> str:
    return respond(
        {"seq": request["seq"], "ok": False, "error": {"code": code, "message": message}}
    )


def known_only(rules: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """The rules without the parameters this adapter's authors had not heard of."""
    known = registry()
    kept: dict[str, Any] = {}
    for key, value in rules.items():
        path = prefix + key
        if path in known.sections and isinstance(value, dict):
            kept[key] = known_only(value, path + ".")
        elif known.known(path):
            kept[key] = value
    return kept


def too_high(option: dict[str, Any], value: Any) -> bool:
    span = option.get("range")
    if not span or span.get("max") is not None or isinstance(value, (list, dict, bool)):
        return False
    try:
        return float(value) > float(option["default"])
    except (TypeError, ValueError):
        return False


def start(request: dict[str, Any], session: Session) -> str | None:
    profile = request.get("profile")
    if not isinstance(profile, dict):
        return None
    rules = profile.get("rules") or {}
    seats = rules.get("seats") or {}
    wanted = request.get("seats")
    if isinstance(wanted, int) and not seats.get("min", 2) <= wanted <= seats.get("max", 6):
        return refuse(request, "invalid_seats", f"seats must be within {seats}")
    options = dict(request.get("options") or {})
    by_name = {o["name"]: o for o in profile.get("options") or []}
    for name, value in options.items():
        if isinstance(value, (list, dict)):
            return refuse(request, "invalid_option_value", f"{name}: not a value")
        if name in by_name and too_high(by_name[name], value):
            return refuse(request, "invalid_option_value", f"{name}: above the range")
    for name, option in by_name.items():
        if isinstance(option.get("sets"), list):
            options.pop(name, None)  # only a dotted path was known: the rules stay as sent
    profile = {**profile, "rules": known_only(rules)}
    return respond(session.handle({**request, "profile": profile, "options": options}))


def hook(request: dict[str, Any], session: Session) -> str | None:
    cmd = request.get("cmd")
    if cmd == "hello":
        response = session.handle(request)
        response["protocol"] = "1.0"
        return respond(response)
    if cmd == "start":
        return start(request, session)
    if cmd == "set_option":
        value = request.get("value")
        if isinstance(value, (list, dict)):
            return refuse(request, "invalid_option_value", "not a value")
        game = session.game
        option = next(
            (
                o
                for o in (game.document.get("options") if game else None) or []
                if o["name"] == request.get("name")
            ),
            None,
        )
        if option is not None and too_high(option, value):
            return refuse(request, "invalid_option_value", "above the range")
        return None
    if cmd == "legal":
        response = session.handle(request)
        legal = response.get("legal")
        if response.get("ok") and isinstance(legal, dict):
            legal["throws"] = sorted(legal["throws"], key=len, reverse=True)
        return respond(response)
    return None


def main() -> int:
    record_pid()
    session = Session()
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        echoed: object = None
        try:
            value = json.loads(line)
        except ValueError:
            value = None
        seq = value.get("seq") if isinstance(value, dict) else None
        if isinstance(seq, int) and not isinstance(seq, bool) and not 0 <= seq <= MAX_SEQ:
            echoed, value["seq"] = seq, 0  # the old docs said "an integer", nothing more
            line = json.dumps(value).encode("utf-8")
        try:
            request = decode_request(line)
        except JhyapError as exc:
            write(
                respond(
                    {
                        "seq": None,
                        "ok": False,
                        "error": {"code": exc.code.value, "message": exc.message},
                    }
                )
            )
            continue
        if not isinstance(request, dict):
            write(respond(session.handle(request)))
            continue
        raw = hook(request, session) or respond(session.handle(request))
        if echoed is not None:
            raw = respond({**json.loads(raw), "seq": echoed})
        write(raw)
        if session.stopped:
            break
    return 0


raise SystemExit(main())
