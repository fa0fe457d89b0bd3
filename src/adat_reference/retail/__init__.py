"""The retail reference domain: τ²-bench-format database and its tools.

adat's own database comes from :mod:`adat_reference.retail.generate` (not imported here, so that
``python -m adat_reference.retail.generate`` runs it cleanly).
"""

from adat_reference.retail.database import RetailDB, default_db_path, default_policy_path
from adat_reference.retail.tools import TOOL_NAMES, WRITE_TOOLS, RetailTools

__all__ = [
    "TOOL_NAMES",
    "WRITE_TOOLS",
    "RetailDB",
    "RetailTools",
    "default_db_path",
    "default_policy_path",
]
