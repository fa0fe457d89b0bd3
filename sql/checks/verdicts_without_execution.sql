-- verdicts_without_execution: verdicts whose execution the run does not hold, or that name
-- another test than their execution.
-- grain: one row per violating verdict (run_id, execution_id)
-- inputs: stg_verdicts, stg_executions
-- params: run_id
select v.run_id, v.execution_id, v.test_id,
       case when e.execution_id is null then 'execution not found in the run'
            else 'verdict test_id ' || v.test_id || ' differs from the execution''s ' || e.test_id
       end as problem
from stg_verdicts as v
left join stg_executions as e on e.run_id = v.run_id and e.execution_id = v.execution_id
where ($run_id is null or v.run_id = $run_id)
  and (e.execution_id is null or e.test_id <> v.test_id)
order by v.run_id, v.execution_id
