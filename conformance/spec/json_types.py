"""The JSON value type, as the harness's modules import it: jhyap_core's one alias."""

from __future__ import annotations

from jhyap_core.json_types import Json

__all__ = ["Json"]
