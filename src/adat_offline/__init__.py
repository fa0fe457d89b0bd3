"""The offline/heuristic provider: a deterministic, rule-based stand-in for an LLM (DESIGN §6).

A wing of its own, apart from the real path: adat registers it as a provider plugin (the
``adat.providers`` entry point ``offline`` in ``pyproject.toml``), and the LLM client's registry
loads :class:`adat_offline.provider.OfflineHeuristicProvider` only when a role uses
``offline/heuristic``. It depends on adat's role contracts (:mod:`adat.contracts`), the LLM
types and the shared records alone; nothing in ``src/adat`` imports it
(``tests/test_architecture.py``). Nothing is imported here so that importing the package costs
nothing.
"""
