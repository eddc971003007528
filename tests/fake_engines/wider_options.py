"""A correct engine offering every call limit from 1 to 30 where a profile's call_limit option
lists a few: the option is widened in the profile it is started with, then played as usual."""

from typing import Any

from _common import Session, serve


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "start" and isinstance(request.get("profile"), dict):
        for option in request["profile"].get("options") or []:
            if option.get("name") == "call_limit" and "values" in option:
                del option["values"]
                option["range"] = {"min": 1, "max": 30, "step": 1}
    return None


raise SystemExit(serve(hook))
