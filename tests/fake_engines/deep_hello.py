"""Answers hello with valid JSON nested 5,000 levels deep."""

from typing import Any

from _common import Session, serve


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "hello":
        deep = "[" * 5000 + "]" * 5000
        return f'{{"seq":{request["seq"]},"ok":true,"x":{deep}}}'
    return None


raise SystemExit(serve(hook))
