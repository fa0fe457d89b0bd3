"""TestSmith: spec tests from a spec, one ``testsmith`` call per decision-tree path to a leaf.

Paths are simple root-to-leaf paths of the tree (a node at most once): the shortest per leaf,
then longer ones that take a branch no chosen path takes yet, at most ``MAX_PATHS_PER_LEAF``
per leaf. The families asked for are the spec's
``tests.visible.min_types`` (MFT / INV / DIR) and its ``tests.hidden.generators`` (paraphrase /
boundary_values / tool_output_metamorphic).

The split is by family and seeded by leaf: the visible families are the visible split and the
hidden generators the hidden one, as the spec's ``tests`` section declares; the seed, with the
leaf and family, fixes each test's id, its variation (passed to the role) and the order of the
suite. A spec with no hidden generators gets no hidden tests, and a test's split never depends
on what it contains, so nothing about a hidden test can leak into the visible ones.
"""

from __future__ import annotations

import hashlib
import logging
import random
import re

from adat.contracts.tdad_spec import HIDDEN_FAMILIES, Spec
from adat.contracts.testsmith_roles import (
    PROMPT_TESTSMITH,
    ROLE_TESTSMITH,
    PathStep,
    TestSmithInput,
    TestSmithOutput,
)
from adat.llm.types import LLMError, TesterLLM
from adat.spec_records import Family, SpecTest
from adat.stages.provenance import call_role

log = logging.getLogger(__name__)

MAX_PATHS_PER_LEAF = 3


def leaf_paths(spec: Spec) -> list[tuple[str, list[PathStep]]]:
    """``(leaf_id, steps)`` for simple root-to-leaf paths, leaves in tree order (see below)."""
    leaves = spec.leaves()
    found: dict[str, list[list[PathStep]]] = {leaf: [] for leaf in leaves}
    root = spec.decision_tree[0].node_id

    def walk(node_id: str, steps: list[PathStep], seen: set[str]) -> None:
        node = spec.node(node_id)
        if node is None or not node.branches:
            if node_id in found:
                found[node_id].append([*steps, PathStep(node_id=node_id)])
            return
        for branch in node.branches:
            if branch.next in seen:
                continue
            walk(branch.next, [*steps, PathStep(node_id=node_id, when=branch.when, next=branch.next)],
                 seen | {branch.next})

    walk(root, [], {root})
    # shortest path per leaf first, then longer ones that take a branch no chosen path takes
    # (the spec's min_branch_coverage), at most MAX_PATHS_PER_LEAF per leaf
    chosen: dict[str, list[list[PathStep]]] = {leaf: [] for leaf in leaves}
    covered: set[tuple[str, str, str]] = set()
    candidates = sorted(((len(p), leaves.index(leaf), leaf, p) for leaf in leaves for p in found[leaf]),
                        key=lambda c: (c[0], c[1]))
    for _, _, leaf, steps in candidates:
        if _contradictory(steps):
            continue
        edges = {(s.node_id, s.when, s.next) for s in steps if s.next}
        if len(chosen[leaf]) < MAX_PATHS_PER_LEAF and (not chosen[leaf] or edges - covered):
            chosen[leaf].append(steps)
            covered |= edges
    return [(leaf, steps) for leaf in leaves for steps in chosen[leaf]]


_EQUALS = re.compile(r"([A-Za-z_][\w.]*)\s*==\s*([\w.\-]+)")


def _contradictory(steps: list[PathStep]) -> bool:
    """A path whose conditions need one thing to equal two values (``intent == a`` then ``intent == b``)."""
    seen: dict[str, str] = {}
    for step in steps:
        for name, value in _EQUALS.findall(step.when):
            if seen.setdefault(name, value) != value:
                return True
    return False


def families_of(spec: Spec) -> list[Family]:
    return list(dict.fromkeys([*spec.tests.visible.min_types, *(g.type for g in spec.tests.hidden.generators)]))


def _test_id(spec: Spec, leaf: str, path_no: int, family: str, n: int, seed: int) -> str:
    digest = hashlib.sha256(f"{spec.spec_id}|{leaf}|{path_no}|{family}|{n}|{seed}".encode()).hexdigest()[:8]
    return f"{spec.spec_id}.{leaf}.p{path_no}.{family}.{n}-{digest}"


def generate_tests(client: TesterLLM, spec: Spec, *, seed: int, run_id: str = "") -> list[SpecTest]:
    """Every test TestSmith writes for ``spec``; a path whose call fails is logged and skipped."""
    families = families_of(spec)
    spec_data = spec.model_dump(mode="json", by_alias=True, exclude_none=True)
    tests: list[SpecTest] = []
    per_leaf: dict[str, int] = {}
    for leaf, steps in leaf_paths(spec):
        path_no = per_leaf.get(leaf, 0)
        per_leaf[leaf] = path_no + 1
        leaf_seed = random.Random(f"{seed}|{spec.spec_id}|{leaf}|{path_no}").randrange(2**31)
        inp = TestSmithInput(spec=spec_data, leaf_id=leaf, path=steps, path_no=path_no, families=families,
                             seed=leaf_seed)
        try:
            out, prov = call_role(client, ROLE_TESTSMITH, PROMPT_TESTSMITH, inp, TestSmithOutput)
        except LLMError as exc:
            log.warning("testsmith failed for %s path %d: %s", leaf, path_no, exc)
            continue
        counts: dict[str, int] = {}
        for gen in out.tests:
            n = counts.get(gen.family, 0)
            counts[gen.family] = n + 1
            test = SpecTest(
                test_id=_test_id(spec, leaf, path_no, gen.family, n, seed), run_id=run_id, spec_id=spec.spec_id,
                spec_version=spec.version, family=gen.family,
                split="hidden" if gen.family in HIDDEN_FAMILIES else "visible",
                leaf_id=leaf, node_path=[s.node_id for s in steps],
                clauses=list(dict.fromkeys(gen.clauses or [a.clause for a in gen.assertions])),
                title=gen.title, user_turns=gen.user_turns, fixtures=gen.fixtures, pii_canaries=gen.pii_canaries,
                assertions=gen.assertions,
                derived_from=_test_id(spec, leaf, path_no, gen.varies, 0, seed) if gen.varies else "",
                seed=leaf_seed, **prov.fields())
            problems = test.problems()
            if problems:
                log.warning("testsmith wrote a malformed test for %s (%s); dropped: %s", leaf, gen.family,
                            "; ".join(problems))
                continue
            tests.append(test)
    random.Random(seed).shuffle(tests)
    return sorted(tests, key=lambda t: (t.split != "visible",))
