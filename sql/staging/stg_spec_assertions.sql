-- stg_spec_assertions: one row per typed assertion judged in a spec test execution, from every stage.
-- outcome is pass | fail | not_observable (an assertion the target cannot show is never a pass).
-- grain: run_id, source, result_id, assertion_index
-- source: stg_compile_results.assertion_results, stg_spec_reruns.assertion_results, stg_mutant_results.assertion_results
with results as (
    select 'compile_results' as source, run_id, result_id, test_id, split, agent_variant, rerun, assertion_results
    from stg_compile_results
    union all
    select 'spec_reruns', run_id, result_id, test_id, split, agent_variant, rerun, assertion_results
    from stg_spec_reruns
    union all
    select 'mutant_results', run_id, result_id, test_id, split, agent_variant, rerun, assertion_results
    from stg_mutant_results
)
-- unnest in the select list, not a lateral join: DuckDB then pushes a run_id filter below it.
select
    run_id, source, result_id, test_id, split, agent_variant, rerun,
    item.index as assertion_index,
    item.kind as assertion_kind,
    item.clause as clause,
    item.outcome as outcome,
    item.detail as detail
from (
    select r.run_id, r.source, r.result_id, r.test_id, r.split, r.agent_variant, r.rerun,
        unnest(r.assertion_results) as item
    from results as r
)
