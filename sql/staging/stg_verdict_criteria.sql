-- stg_verdict_criteria: one row per success/failure criterion the judge assessed in a verdict.
-- holds is NULL when the trace does not show it. criterion_index is 0-based.
-- grain: run_id, execution_id, criterion_index
-- source: stg_verdicts.criteria
select
    v.run_id,
    v.execution_id,
    v.test_id,
    v.verdict,
    c.ordinality - 1 as criterion_index,
    c.item.criterion as criterion,
    c.item.kind as criterion_kind,
    c.item.holds as holds,
    c.item.rationale as criterion_rationale
from stg_verdicts as v,
    unnest(v.criteria) with ordinality as c(item, ordinality)
