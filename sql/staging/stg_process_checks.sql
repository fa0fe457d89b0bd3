-- stg_process_checks: one row per process check judged on an execution, beside the verdict it
-- went into: outcome pass | fail | not_observable (the target reported no tool calls), the
-- judge's own verdict (judge_verdict) and the final one (verdict: fail when a check failed).
-- grain: run_id, execution_id, check_index
-- source: stg_verdicts.process_checks
-- unnest in the select list, not a lateral join: DuckDB then pushes a run_id filter below it.
select
    run_id, execution_id, test_id, verdict, judge_verdict, check_index,
    item.statement_id as statement_id,
    item.statement as statement,
    item.kind as kind,
    item."check" as "check",
    item.outcome as outcome,
    item.detail as detail
from (
    select v.run_id, v.execution_id, v.test_id, v.verdict, v.judge_verdict,
        generate_subscripts(v.process_checks, 1) - 1 as check_index, unnest(v.process_checks) as item
    from stg_verdicts as v
    where v.process_checks is not null
)
