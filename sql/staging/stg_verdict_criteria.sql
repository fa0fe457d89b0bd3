-- stg_verdict_criteria: one row per success/failure criterion the judge assessed in a verdict.
-- holds is NULL when the trace does not show it. criterion_index is 0-based.
-- grain: run_id, execution_id, criterion_index
-- source: stg_verdicts.criteria
-- unnest in the select list, not a lateral join: DuckDB then pushes a run_id filter below it.
select
    run_id, execution_id, test_id, verdict, criterion_index,
    item.criterion as criterion,
    item.kind as criterion_kind,
    item.holds as holds,
    item.rationale as criterion_rationale
from (
    select v.run_id, v.execution_id, v.test_id, v.verdict,
        generate_subscripts(v.criteria, 1) - 1 as criterion_index, unnest(v.criteria) as item
    from stg_verdicts as v
)
