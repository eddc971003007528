"""Answers hello with valid JSON nested 5,000 levels deep."""

from _common import serve


def hook(request, session):
    if request.get("cmd") == "hello":
        deep = "[" * 5000 + "]" * 5000
        return f'{{"seq":{request["seq"]},"ok":true,"x":{deep}}}'
    return None


raise SystemExit(serve(hook))
