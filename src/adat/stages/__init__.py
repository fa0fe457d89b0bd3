"""The AdaT2 pipeline stages as plain library functions (no Prefect, no file I/O).

Each stage takes the run config, the LLM client and/or the target and records, and returns
records from :mod:`adat.records`; the Prefect tasks in ``tasks/`` wrap them and write Parquet.
"""

from adat.stages.discovery import discover
from adat.stages.execution import execute_test, execute_tests
from adat.stages.judging import enforce_verdict_rule, judge_execution
from adat.stages.plain import GenerationFailure, generate_plain_tests, top_statements
from adat.stages.provenance import Provenance
from adat.stages.statements import extract_statements, ground_statements
from adat.stages.transformation import AttemptOutcome, replay_attempts, transform

__all__ = [
    "AttemptOutcome",
    "GenerationFailure",
    "Provenance",
    "discover",
    "enforce_verdict_rule",
    "execute_test",
    "execute_tests",
    "extract_statements",
    "generate_plain_tests",
    "ground_statements",
    "judge_execution",
    "replay_attempts",
    "top_statements",
    "transform",
]
