"""adat's built-in agents under test, kept apart from the tester (``adat``).

``agent`` is the deterministic rule-based retail agent with its rules and seeded faults,
``retail`` its τ²-bench-format domain (database, tools, generator, fact check), ``llm_agent`` the
LLM-driven retail agent, and ``target`` registers both as ``adat.targets`` plugins. This package
may import from ``adat`` only the target protocol and the records it reports
(tests/test_architecture.py lists them); ``adat`` never imports this package.
"""
