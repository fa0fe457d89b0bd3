"""The role contracts: what every LLM role is given and must answer, in one place.

Each ``*Input`` model is the variables a role's prompt (``catalogs/prompts/``) is rendered from;
each ``*Output`` model is the structured answer the LLM client validates. The pipeline stages
build the inputs, the prompts render them, and every provider answers them — real models and the
offline stand-in (the separate ``adat_offline`` package, which may import only these contracts,
the LLM types and the shared records: ``tests/test_architecture.py``).

* :mod:`adat.contracts.adat2_roles` — the AdaT2 tester roles (planner, driver, extractor,
  grounder, generators, judge, selector, the AgentEval baseline) and the not-applicable reason
  kinds a generator tags a declined pair with;
* :mod:`adat.contracts.auditor_roles` — the evaluation's auditor roles, the only ones that see
  the agent's artifacts;
* :mod:`adat.contracts.tdad_roles` — TDAD's PromptSmith and MutationSmith;
* :mod:`adat.contracts.testsmith_roles` — TDAD's TestSmith;
* :mod:`adat.contracts.tdad_spec` — the TDAD spec document TestSmith is given as data, and
  :mod:`adat.contracts.tdad_clauses` — the clause ids tests cite and the sentences prompts say.

These modules import nothing of adat but each other and the shared records, so depending on
them pulls in no pipeline. Nothing is imported here.
"""
