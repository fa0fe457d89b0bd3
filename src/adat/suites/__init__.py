"""Suites as first-class artifacts: a test's content identity across runs (:mod:`.identity`),
blessed suites by name (:mod:`.suite_blessings`) and suite bundles for CI (:mod:`.bundle`)."""
