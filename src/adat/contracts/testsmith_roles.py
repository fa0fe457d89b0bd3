"""What the ``testsmith`` role is given and must answer (prompt ``catalogs/prompts/testsmith.yaml``).

One call per decision-tree path: the spec (as data), the path from the root to one leaf with the
branch taken at every node, the test families to write and the seed. The answer is tests as
data -- user turns, fixtures, PII canaries, typed assertions, each naming its spec clause.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from adat.contracts.contract_base import Contract
from adat.spec_records import Family, SpecAssertion, ToolFixture

PROMPT_TESTSMITH = "testsmith"
ROLE_TESTSMITH = "testsmith"


class PathStep(Contract):
    node_id: str
    when: str = Field("", description="the branch condition taken at this node ('' at the leaf)")
    next: str = Field("", description="the node the branch leads to ('' at the leaf)")


class TestSmithInput(Contract):
    __test__ = False
    spec: dict[str, Any] = Field(description="the whole spec, as data")
    leaf_id: str
    path: list[PathStep] = Field(description="root to leaf; the last step is the leaf")
    path_no: int = Field(0, description="which path to this leaf (0 = the first)")
    families: list[Family] = Field(description="write one test per family (when the family fits the path)")
    seed: int = 0


class GeneratedSpecTest(Contract):
    __test__ = False
    family: Family
    title: str = ""
    user_turns: list[str] = Field(min_length=1, description="user messages, sent in order")
    fixtures: list[ToolFixture] = Field(default_factory=list, description="what each tool returns or how it fails")
    pii_canaries: list[str] = Field(default_factory=list, description="canary values planted in tool outputs")
    assertions: list[SpecAssertion] = Field(min_length=1, description="typed expectations, each citing its clause")
    clauses: list[str] = Field(default_factory=list, description="policy and node ids the test checks")
    varies: str = Field("", description="hidden tests: the family of the visible test this one varies (e.g. MFT)")


class TestSmithOutput(Contract):
    __test__ = False
    tests: list[GeneratedSpecTest]
