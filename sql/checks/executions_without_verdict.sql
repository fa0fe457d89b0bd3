-- executions_without_verdict: executions the judge gave no verdict.
-- grain: one row per violating execution (run_id, execution_id)
-- inputs: stg_executions, stg_verdicts
-- params: run_id
-- Every execution is judged, errored ones included (the judge returns inconclusive).
select e.run_id, e.execution_id, e.test_id, e.agent_variant, 'no verdict' as problem
from stg_executions as e
where ($run_id is null or e.run_id = $run_id)
  and not exists (select 1 from stg_verdicts as v
                  where v.run_id = e.run_id and v.execution_id = e.execution_id)
order by e.run_id, e.execution_id
