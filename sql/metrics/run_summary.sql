-- run_summary: the headline counts `adat run` prints, one row per run.
-- grain: one row per run_id
-- inputs: stg_runs, stg_statements, stg_tests, stg_attempts, stg_executions, stg_traces, stg_llm_calls
-- params: run_id
-- Distinct ids only (staging views hold one row per id); the evaluation's LLM calls and fault
-- variants' executions (written into a suite run by `evaluate`) are not the run's own and are left
-- out. target_errors: the run's executions that ended in a target error plus discovery sessions that did; failed_llm_calls: calls that ended in an error;
-- attempt_errors: attempts whose generator or target failed (neither applicable nor not).
with runs as (
    select run_id, flow, status, stopped_in, error, agent_variant from stg_runs where ($run_id is null or run_id = $run_id)
)
select
    r.run_id,
    r.flow,
    r.status,
    coalesce(r.stopped_in, '') as stopped_in,
    coalesce(r.error, '') as error,
    r.agent_variant,
    (select count(*) from stg_statements s where s.run_id = r.run_id) as statements,
    (select count(*) from stg_statements s where s.run_id = r.run_id and s.grounded and s.rank is not null)
        as grounded_statements,
    (select count(*) from stg_tests t where t.run_id = r.run_id and t.kind = 'plain') as plain_tests,
    (select count(*) from stg_tests t where t.run_id = r.run_id and t.kind = 'transformed') as transformed_tests,
    (select count(*) from stg_tests t where t.run_id = r.run_id) as tests,
    (select count(*) from stg_attempts a where a.run_id = r.run_id) as attempts,
    (select count(*) from stg_attempts a where a.run_id = r.run_id and a.outcome = 'not_applicable') as not_applicable,
    (select count(*) from stg_attempts a where a.run_id = r.run_id and a.outcome = 'error') as attempt_errors,
    (select count(*) from stg_executions e where e.run_id = r.run_id and e.agent_variant = r.agent_variant and e.has_error)
      + (select count(*) from stg_traces d where d.run_id = r.run_id and d.ended_by = 'error') as target_errors,
    (select count(*) from stg_llm_calls c where c.run_id = r.run_id and c.error is not null
        and coalesce(c.phase, '') not in ('audit', 'groupings', 'execution-labels', 'regression')) as failed_llm_calls,
    (select count(*) from stg_llm_calls c where c.run_id = r.run_id and c.cache_hit
        and coalesce(c.phase, '') not in ('audit', 'groupings', 'execution-labels', 'regression')) as cache_hits
from runs as r
order by r.run_id
