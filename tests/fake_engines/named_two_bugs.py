"""two_bugs.py's engine (a total at the threshold is out; ties go to the lowest seat)
under a name of its own, which holds markup a page must show as text: the engines
matrix's second engine (tests/e2e/test_matrix.py)."""

from typing import Any

from _common import Session, respond, serve

from tests.mutants.engine import MUTANTS

NAME = 'two-bugs <script>alert("x")</script>'
VERSION = "0.0.1 & <b>bold</b>"

MUTANTS["out_at_100"]()
MUTANTS["tie_break_by_seat_number"]()


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "hello":
        response = session.handle(request)
        if "engine" not in response:  # a refused hello (a wrong protocol): as the reference
            return None
        response["engine"] = {**response["engine"], "name": NAME, "version": VERSION}
        return respond(response)
    return None


raise SystemExit(serve(hook))
