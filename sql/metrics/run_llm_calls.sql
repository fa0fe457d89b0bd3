-- run_llm_calls: a run's own LLM calls by role and provider/model, the evaluation's left out.
-- grain: one row per run_id, role and provider_model
-- inputs: stg_llm_calls
-- params: run_id
-- The evaluation (audit, groupings, execution labels, regressions) writes its calls into the
-- suite run's partition; they are not the run's own, so the run summary (which reads this)
-- reports what the run did, before or after `--evaluate`. errors: calls that ended in an error.
select
    run_id,
    role,
    provider_model,
    count(*) as calls,
    count(*) filter (where error is not null) as errors
from stg_llm_calls
where ($run_id is null or run_id = $run_id)
    and coalesce(phase, '') not in ('audit', 'groupings', 'execution-labels', 'regression')
group by run_id, role, provider_model
order by run_id, role, provider_model
