"""What a fault worker needs before its first regression, imported once (``flows._fault_runner``).

The fault workers' fork server imports this module before it forks any worker, so every worker
starts with the regression's modules imported, the rule table parsed and Prefect's add-on
collections loaded (a task's first result-storage block lookup would import every installed
collection: prefect-dask → distributed, dask, pandas). Without a fork server each worker imports
it itself, once.
"""

from __future__ import annotations

import contextlib
import os

import prefect.task_engine  # noqa: F401  (what a worker runs each task with)
import pyarrow.dataset  # noqa: F401  (the first record read imports it, and pandas with it)

import tasks.evaluation_tasks  # noqa: F401  (the task module a regression is unpickled into)
from adat.child_guard import die_with_parent
from adat.errors import UserError
from adat.evaluation import labels, replay  # noqa: F401
from adat.pipeline import steps  # noqa: F401
from adat.stages import execution, judging  # noqa: F401
from adat_reference.agent.rules import RuleBook

# The fork server imports this module first: it dies with the flow process that started it,
# even after kill -9 (adat.child_guard); so do the workers it forks (flows._fault_runner).
_flow_process = os.environ.get("ADAT_FAULT_POOL_PARENT", "")  # flows._fault_runner.PARENT_ENV
if _flow_process == str(os.getppid()):
    die_with_parent(int(_flow_process))

with contextlib.suppress(UserError):  # no default rule table (a broken install): nothing to warm
    RuleBook.load()
with contextlib.suppress(ImportError):  # a private helper of Prefect's: warming is optional
    from prefect._internal.plugins.collections import load_prefect_collections

    load_prefect_collections()
