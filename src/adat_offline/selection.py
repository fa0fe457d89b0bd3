"""LLM-selector stand-in of the offline/heuristic provider.

Picks the candidate pair whose instruction the history mentions least (spreading attempts over
instructions, as a cautious human would), preferring instructions not yet reported not
applicable, then candidate order. Deterministic: the same input gives the same pair.
"""

from __future__ import annotations

import re

from adat.contracts.adat2_roles import SelectorInput, SelectorOutput

_NOT_APPLICABLE = re.compile(r"not applicable|n/a|inapplicable", re.I)


def select(inp: SelectorInput) -> SelectorOutput:
    """The untried candidate with the least used instruction."""
    if not inp.candidates:
        raise ValueError("the selector got no candidates")

    def uses(instruction_id: str) -> tuple[int, int]:
        pattern = re.compile(rf"(?<![\w-]){re.escape(instruction_id)}(?![\w-])")
        lines = [h for h in inp.history if pattern.search(h)]
        return len(lines), sum(1 for h in lines if _NOT_APPLICABLE.search(h))

    order = {c.instruction_id: uses(c.instruction_id) for c in inp.candidates}
    index, best = min(enumerate(inp.candidates),
                      key=lambda ic: (order[ic[1].instruction_id][1], order[ic[1].instruction_id][0], ic[0]))
    used, failed = order[best.instruction_id]
    return SelectorOutput(statement_id=best.statement_id, instruction_id=best.instruction_id,
                          reason=f"offline/heuristic: instruction {best.instruction_id} used {used} times "
                                 f"({failed} not applicable) in {len(inp.history)} earlier attempts; "
                                 f"candidate {index + 1} of {len(inp.candidates)}")
