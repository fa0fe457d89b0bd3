-- run_summary: the headline counts `adat run` prints, one row per run.
-- grain: one row per run_id
-- inputs: stg_runs, stg_statements, stg_tests, stg_attempts, stg_executions, stg_traces, stg_llm_calls
-- params: run_id
-- Distinct ids only (staging views hold one row per id); the evaluation's LLM calls and fault
-- variants' executions (written into a suite run by `evaluate`) are not the run's own and are left
-- out. target_errors: the run's executions that ended in a target error plus discovery sessions that did; failed_llm_calls: calls that ended in an error;
-- attempt_errors: attempts whose generator or target failed (neither applicable nor not).
-- One aggregate per staging view, each filtered on the run before its dedupe window: a view
-- named in several correlated subqueries would be deduplicated once per subquery.
with runs as (
    select run_id, flow, status, stopped_in, error, agent_variant from stg_runs where ($run_id is null or run_id = $run_id)
),
statements as (
    select run_id, count(*) as statements, count(*) filter (where grounded and rank is not null) as grounded_statements
    from stg_statements where ($run_id is null or run_id = $run_id) group by run_id
),
tests as (
    select run_id, count(*) filter (where kind = 'plain') as plain_tests,
        count(*) filter (where kind = 'transformed') as transformed_tests, count(*) as tests
    from stg_tests where ($run_id is null or run_id = $run_id) group by run_id
),
attempts as (
    select run_id, count(*) as attempts, count(*) filter (where outcome = 'not_applicable') as not_applicable,
        count(*) filter (where outcome = 'error') as attempt_errors
    from stg_attempts where ($run_id is null or run_id = $run_id) group by run_id
),
execution_errors as (
    select e.run_id, count(*) as errors
    from stg_executions as e
    join runs as r on r.run_id = e.run_id and e.agent_variant = r.agent_variant
    where e.has_error and ($run_id is null or e.run_id = $run_id)
    group by e.run_id
),
trace_errors as (
    select run_id, count(*) as errors
    from stg_traces where ended_by = 'error' and ($run_id is null or run_id = $run_id) group by run_id
),
calls as (
    select run_id, count(*) filter (where error is not null) as failed_llm_calls,
        count(*) filter (where cache_hit) as cache_hits
    from stg_llm_calls
    where coalesce(phase, '') not in ('audit', 'groupings', 'execution-labels', 'regression')
      and ($run_id is null or run_id = $run_id)
    group by run_id
)
select
    r.run_id,
    r.flow,
    r.status,
    coalesce(r.stopped_in, '') as stopped_in,
    coalesce(r.error, '') as error,
    r.agent_variant,
    coalesce(s.statements, 0) as statements,
    coalesce(s.grounded_statements, 0) as grounded_statements,
    coalesce(t.plain_tests, 0) as plain_tests,
    coalesce(t.transformed_tests, 0) as transformed_tests,
    coalesce(t.tests, 0) as tests,
    coalesce(a.attempts, 0) as attempts,
    coalesce(a.not_applicable, 0) as not_applicable,
    coalesce(a.attempt_errors, 0) as attempt_errors,
    coalesce(ee.errors, 0) + coalesce(te.errors, 0) as target_errors,
    coalesce(c.failed_llm_calls, 0) as failed_llm_calls,
    coalesce(c.cache_hits, 0) as cache_hits
from runs as r
left join statements as s on s.run_id = r.run_id
left join tests as t on t.run_id = r.run_id
left join attempts as a on a.run_id = r.run_id
left join execution_errors as ee on ee.run_id = r.run_id
left join trace_errors as te on te.run_id = r.run_id
left join calls as c on c.run_id = r.run_id
order by r.run_id
