-- run_overview: the run's own record (flow, target, status, times, selector) for report headers.
-- grain: at most one row
-- inputs: stg_runs
-- params: run_id
select run_id, flow, target, agent_variant, status, started_at, finished_at, duration_s, selector, adat_version
from stg_runs
where run_id = $run_id
