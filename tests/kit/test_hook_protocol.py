"""jhyap_kit.hooks, the hook protocol's client, against a rules server in process.

The server is tests/kit_engines/hook_server.py (the reference rule functions answering hook
lines), spoken to through a channel that checks every line against schema/hooks/; the same
requests sent to the in-process binding tests/kit_engines/object_api.py must get the same
responses. A channel told to break shows what the kit says when a server dies or answers
garbage. The servers as processes: tests/e2e/test_rules_servers.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from conformance.cli import _engine_after_dashes, _take_engine, build_parser, main
from conformance.spec.profiles import resolved_profile
from jhyap_kit import ANY, KIT_RULES
from jhyap_kit.hooks import (
    ChannelBroken,
    Description,
    HookClient,
    HookEngine,
    HookFailure,
    _arguments,
    hook_engine,
)
from tests.conftest import deck_from_hands
from tests.kit.test_kit import Client
from tests.kit_engines.hook_server import DESCRIPTION, HookServer
from tests.kit_engines.object_api import ObjectApiEngine

ROOT = Path(__file__).resolve().parents[2]
REQUEST = json.loads((ROOT / "schema" / "hooks" / "request.schema.json").read_text())
ANSWER = json.loads((ROOT / "schema" / "hooks" / "answer.schema.json").read_text())
HANDS = ["Ac As 2c 2d 3c", "Qc Kc Kd Kh Ks"]

# A special answer: a line to answer instead, or a ChannelBroken to raise.
Special = str | ChannelBroken


class InProcess:
    """A rules server in process, checking every line against schema/hooks/; ``special``
    answers a hook otherwise (its first time asked)."""

    def __init__(self, special: dict[str, Special] | None = None, **described: Any) -> None:
        self.server = HookServer()
        self.special = dict(special or {})
        self.described = described  # fields of describe's answer to replace
        self.asked: list[str] = []
        self.closed = False

    def exchange(self, line: str) -> str:
        assert not self.closed
        request = json.loads(line)
        Draft202012Validator(REQUEST).validate(request)
        hook = request["hook"]
        self.asked.append(hook)
        if hook in self.special:
            special = self.special.pop(hook)
            if isinstance(special, ChannelBroken):
                raise special
            return special
        answer = self.server.answer(request)
        Draft202012Validator({**ANSWER, "$ref": f"#/$defs/{hook}"}).validate(answer)
        if hook == "describe":
            answer = {"result": {**answer["result"], **self.described}}
        return json.dumps(answer)

    def close(self) -> None:
        self.closed = True


def over(channels: list[InProcess], warnings: list[str] | None = None) -> HookEngine:
    """A HookEngine launching the channels in turn, its warnings kept in ``warnings``."""
    queue = iter(channels)
    client = HookClient(lambda: next(queue), (warnings if warnings is not None else []).append)
    return hook_engine(client)


def start(client: Client, profile: str = "dhumbal", **options: Any) -> dict[str, Any]:
    return client.ask("start", profile=resolved_profile(profile, options), options=options, seats=2)


def game(client: Client, profile: str) -> list[dict[str, Any]]:
    """A short game's responses: a deal, throws, picks, state, legal, a call, the end."""
    asked = [
        start(client, profile),
        client.ask("deal", deck=deck_from_hands(HANDS, "5h")),
        client.ask("act", seat=0, action={"type": "throw", "cards": ["Ac", "2d"]}),
        client.ask("act", seat=0, action={"type": "throw", "cards": ["Ac", "2c", "3c"]}),
        client.ask("act", seat=0, action={"type": "pick", "from": "offer", "card": "5h"}),
        client.ask("state"),
        client.ask("legal"),
        client.ask("act", seat=1, action={"type": "call"}),
        client.ask("act", seat=1, action={"type": "throw", "cards": ["Kc", "Kd", "Kh", "Ks"]}),
        client.ask("act", seat=1, action={"type": "pick", "from": "deck"}),
        client.ask("act", seat=0, action={"type": "call"}),
        client.ask("state"),
        client.ask("end_game"),
    ]
    return asked


@pytest.mark.parametrize("profile", ["dhumbal", "dashain", "everestbuzz"])
def test_the_hook_protocol_answers_as_the_binding_in_process(profile: str) -> None:
    through_hooks = game(Client(over([InProcess()])), profile)
    assert through_hooks == game(Client(ObjectApiEngine()), profile)
    assert through_hooks[2]["error"]["code"] == "illegal_throw"
    assert through_hooks[10]["events"][0] == {"type": "called", "seat": 0, "value": 8}


def test_a_request_asks_the_hooks_in_the_documented_order() -> None:
    channel = InProcess()
    client = Client(over([channel]))
    start(client, "dashain")
    client.ask("deal", deck=deck_from_hands(HANDS, "5h"))
    assert channel.asked == ["describe", "begin_game", "begin_hand"]
    del channel.asked[:]
    client.ask("act", seat=0, action={"type": "throw", "cards": ["Ac", "2c", "3c"]})
    assert channel.asked == ["refusal", "on_throw", "laid"]
    del channel.asked[:]
    client.ask("act", seat=0, action={"type": "pick", "from": "offer", "card": "5h"})
    assert channel.asked == ["pickable_positions", "refusal", "on_pick"]


def test_the_server_describes_the_engine_and_the_rules_it_plays() -> None:
    engine = over([InProcess()])
    assert (engine.NAME, engine.VERSION, engine.LANGUAGE) == ("hook-object-api", "1.0", "python")
    assert engine.overridden_hooks() == {"laid", "pickable_positions", "legal_throws", "settlement"}
    described = Description.read(
        {**DESCRIPTION, "rules": {"call.limit": [10], "card_values": "any"}, "hooks": []}
    )
    assert described.rules == {**KIT_RULES, "call.limit": [10], "card_values": ANY}
    assert described.options is None and described.hooks == frozenset()


def test_a_table_outside_the_declared_rules_is_refused_naming_the_parameter() -> None:
    narrow = over([InProcess(rules={**DESCRIPTION["rules"], "call.limit": [10]})])
    refused = start(Client(narrow), "dhumbal", call_limit=15)
    assert refused["error"] == {
        "code": "unsupported_option",
        "message": "option call_limit: rules.call.limit: 15 is not implemented by this "
        "engine (it plays 10)",
    }


def test_without_the_settlement_hook_a_money_table_is_refused() -> None:
    refused = start(Client(over([InProcess(hooks=["laid", "pickable_positions"])])), "dashain")
    assert refused["error"] == {
        "code": "unsupported_option",
        "message": "option dollars_per_point: rules.money: the kit's default settlement() "
        "settles no money: the binding overrides settlement() to play it",
    }


def dealt(special: dict[str, Special]) -> tuple[Client, list[InProcess], list[str]]:
    """A dhumbal hand dealt over a server that answers ``special`` otherwise, and the next
    server to be launched (a well one)."""
    channels, warnings = [InProcess(special), InProcess()], list[str]()
    client = Client(over(channels, warnings))
    start(client)
    client.ask("deal", deck=deck_from_hands(HANDS, "5h"))
    return client, channels, warnings


THROW = {"type": "throw", "cards": ["Ac", "2c", "3c"]}


def test_a_server_that_dies_is_named_with_the_hook_and_the_line() -> None:
    client, channels, warnings = dealt({"on_throw": ChannelBroken("exited with status 3")})
    reply = client.ask("act", seat=0, action=THROW)
    message = (
        'rules server exited with status 3 when asked on_throw: {"hook":"on_throw","seat":0,'
        '"cards":["Ac","2c","3c"]}'
    )
    assert reply["error"] == {"code": "internal_error", "message": message}
    assert warnings == [f"jhyap_kit.hooks: {message}"]
    assert channels[0].closed
    later = client.ask("state")["error"]["message"]
    assert later == (
        f"hand_value not asked: the rules server is gone ({message}); the next start starts "
        "a new one"
    )
    assert start(client)["ok"] is True
    assert channels[1].asked == ["describe", "begin_game"]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("this is no answer", "not JSON"),
        ('{"result": "pair"}', "the result must be one of single, set, run"),
        (
            '{"result": "set", "error": "x"}',
            'an answer is an object with one of "result", "refused", "error"',
        ),
        (
            '{"refused": {"code": "too_bad", "message": "no"}}',
            "'too_bad' is not a protocol error code",
        ),
    ],
)
def test_a_line_that_is_no_answer_is_named_with_the_hook(line: str, reason: str) -> None:
    client, channels, warnings = dealt({"on_throw": line})
    message = f"rules server answered on_throw with an unusable line ({reason}): {line}"
    assert client.ask("act", seat=0, action=THROW)["error"] == {
        "code": "internal_error",
        "message": message,
    }
    assert warnings == [f"jhyap_kit.hooks: {message}"] and channels[0].closed


def test_an_error_answer_is_an_internal_error_and_a_refused_one_a_refusal() -> None:
    client, channels, _ = dealt(
        {"on_throw": '{"refused": {"code": "illegal_throw", "message": "not today"}}'}
    )
    before = client.ask("state")
    refused = client.ask("act", seat=0, action=THROW)
    assert refused["error"] == {"code": "illegal_throw", "message": "not today"}
    assert client.ask("state") == {**before, "seq": before["seq"] + 2}
    assert not channels[0].closed
    client, _, _ = dealt({"hand_value": '{"error": "no values today"}'})
    assert client.ask("state")["error"] == {
        "code": "internal_error",
        "message": "rules server failed hand_value: no values today",
    }


def test_a_server_that_cannot_describe_itself_is_not_served() -> None:
    channel = InProcess(rules="all of them")
    with pytest.raises(HookFailure) as failure:
        over([channel])
    assert failure.value.message.startswith(
        'rules server answered describe with an unusable line (rules must be {"dotted.path": '
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["--", "java", "-cp", "build", "RulesServer"],
            (10.0, ["java", "-cp", "build", "RulesServer"]),
        ),
        (["--timeout", "2.5", "--", "./server", "--fast"], (2.5, ["./server", "--fast"])),
        (["--timeout=1", "./server"], (1.0, ["./server"])),
    ],
)
def test_the_command_line_names_the_server(argv: list[str], expected: Any) -> None:
    assert _arguments(argv) == expected


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        ([], "no rules server command after --"),
        (["--"], "no rules server command after --"),
        (["--fast", "--", "x"], "unknown option --fast"),
        (["--timeout", "0", "--", "x"], "--timeout needs a positive number of seconds, not '0'"),
    ],
)
def test_a_command_line_without_a_server_is_refused(argv: list[str], reason: str) -> None:
    with pytest.raises(ValueError, match="^" + reason.replace("(", r"\(") + "$"):
        _arguments(argv)


def test_jhyap_run_takes_the_engine_after_dashes(capsys: pytest.CaptureFixture[str]) -> None:
    words = ["run", "--profile", "dhumbal", "--", "python", "-m", "jhyap_kit.hooks", "--", "a b"]
    parser = build_parser(words)
    options, engine = _engine_after_dashes(parser, words)
    assert (options, engine) == (["run", "--profile", "dhumbal"], words[4:])
    args = parser.parse_args(options)
    assert engine is not None
    _take_engine(parser, args, engine)
    assert args.engine == "python -m jhyap_kit.hooks -- 'a b'"
    words = ["validate", "--", "-odd.yaml"]
    assert _engine_after_dashes(build_parser(words), words) == (words, None)
    assert main(["run", "--engine", "x", "--", "y"]) == 2
    assert capsys.readouterr().err.endswith(
        "jhyap run: give the engine either with --engine or after --, not both\n"
    )
