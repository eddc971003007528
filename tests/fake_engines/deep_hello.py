"""Answers hello with valid JSON nested 5,000 levels deep."""

from _common import serve


def hook(request, session):
    if request.get("cmd") == "hello":
        return '{"seq":%d,"ok":true,"x":%s}' % (request["seq"], "[" * 5000 + "]" * 5000)
    return None


raise SystemExit(serve(hook))
