"""The offline/heuristic provider: a deterministic, rule-based stand-in for an LLM (DESIGN §6).

Use it as ``offline/heuristic`` for any tester role; the LLM client's registry imports
:class:`adat.offline.provider.OfflineHeuristicProvider` lazily. Nothing is imported here so that
importing the package costs nothing.
"""
