-- item_lookup: the runs in which an id names a test or an execution (adat show ID), newest first.
-- grain: one row per run_id, item kind and test_id
-- inputs: stg_tests, stg_executions, stg_runs
-- params: item_id, run_id
-- item is 'test' or 'execution'; test_id is the test itself or the execution's test. run_id NULL
-- searches every run. A run_suite run holds copies of its suite's tests under the same ids.
with found as (
    select run_id, 'test' as item, test_id from stg_tests where test_id = $item_id
    union all
    select run_id, 'execution' as item, test_id from stg_executions where execution_id = $item_id
)
select distinct f.run_id, f.item, f.test_id, r.started_at
from found as f
left join stg_runs as r on r.run_id = f.run_id
where ($run_id is null or f.run_id = $run_id)
order by r.started_at desc nulls last, f.run_id
