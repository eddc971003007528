"""``python -m conformance``: the ``jhyap`` command line."""

from conformance.cli import main

raise SystemExit(main())
