"""Suites as first-class artifacts: a test's content identity across runs (:mod:`.identity`),
blessed suites by name (:mod:`.registry`) and suite bundles for CI (:mod:`.bundle`)."""
