"""What a fault worker needs before its first regression, imported once (``flows._fault_runner``).

The fault workers' fork server imports this module before it forks any worker, so every worker
starts with the regression's modules imported, the rule table parsed and Prefect's add-on
collections loaded (a task's first result-storage block lookup would import every installed
collection: prefect-dask → distributed, dask, pandas). Without a fork server each worker imports
it itself, once.
"""

from __future__ import annotations

from flows._fault_guard import guard

guard()  # first: the server dies with the flow process, and ignores Ctrl-C, before its slow imports

import contextlib

import prefect.task_engine  # noqa: F401  (what a worker runs each task with)
import pyarrow.dataset  # noqa: F401  (the first record read imports it, and pandas with it)

import tasks.stage_tasks  # noqa: F401  (the task module a regression is unpickled into)
from adat.errors import UserError
from adat.evaluation import audit, labels, replay  # noqa: F401
from adat.stages import execution, judging  # noqa: F401
from adat_reference.agent.rules import RuleBook

with contextlib.suppress(UserError):  # no default rule table (a broken install): nothing to warm
    RuleBook.load()
with contextlib.suppress(ImportError):  # a private helper of Prefect's: warming is optional
    from prefect._internal.plugins.collections import load_prefect_collections

    load_prefect_collections()
