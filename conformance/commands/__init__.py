"""The ``jhyap`` subcommands: each module here has ``register(subparsers)``.

``register`` adds the subcommand's parser and sets its ``run`` default, a
function from the parsed arguments to the exit status.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

Subparsers = argparse._SubParsersAction  # the type argparse's add_subparsers returns
Run = Callable[[argparse.Namespace], int]
