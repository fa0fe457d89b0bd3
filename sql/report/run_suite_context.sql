-- run_suite_context: what a CI report says about a run — the suite it executed, the variant it was
-- started against, its trials per test and whether any role was played by the offline stand-in.
-- grain: one row
-- inputs: stg_tests, stg_runs, stg_executions
-- params: run_id
-- suite_run_id: the run (other than a run-suite run) that holds most of this run's tests — test
-- ids are made from their suite's run id — else run_id itself (a pipeline run is its own suite).
-- offline is true when a role's model is offline/heuristic (runs.models_json).
with mine as (
    select distinct test_id from stg_tests where run_id = $run_id
),
holders as (
    select t.run_id, count(*) as shared, min(r.started_at) as started_at
    from stg_tests as t
    join mine as m on m.test_id = t.test_id
    left join stg_runs as r on r.run_id = t.run_id
    where t.run_id <> $run_id and coalesce(r.flow, '') <> 'run_suite'
    group by t.run_id
),
suite as (
    select run_id from holders order by shared desc, started_at nulls last, run_id limit 1
)
select
    $run_id as run_id,
    coalesce((select run_id from suite), $run_id) as suite_run_id,
    coalesce((select agent_variant from stg_runs where run_id = $run_id), 'original') as agent_variant,
    coalesce((select max(trial) from stg_executions where run_id = $run_id), 0) as repeat,
    coalesce((select models_json like '%"offline/heuristic"%' from stg_runs where run_id = $run_id), false) as offline
