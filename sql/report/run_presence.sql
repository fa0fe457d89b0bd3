-- run_presence: whether a run has tests or executions in the warehouse (commands check RUN first).
-- grain: at most one row per run_id
-- inputs: stg_tests, stg_executions
-- params: run_id
select run_id, count(*) as rows_found
from (
    select run_id from stg_tests where run_id = $run_id
    union all
    select run_id from stg_executions where run_id = $run_id
)
group by run_id
