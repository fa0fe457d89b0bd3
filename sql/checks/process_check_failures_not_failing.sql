-- process_check_failures_not_failing: judged executions with a failed process check whose verdict
-- is not fail (a broken check must fail the verdict, naming the statement: adat.stages.process_checks).
-- grain: one row per violating process check (run_id, execution_id, check_index)
-- inputs: stg_process_checks
-- params: run_id
select run_id, execution_id, check_index, statement_id, kind, verdict, judge_verdict
from stg_process_checks
where outcome = 'fail' and judge_verdict is not null and verdict <> 'fail'
  and ($run_id is null or run_id = $run_id)
order by run_id, execution_id, check_index
