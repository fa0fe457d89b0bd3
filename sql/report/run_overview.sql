-- run_overview: the run's own record (flow, target, variant, status, times, selector) for report headers.
-- grain: at most one row
-- inputs: stg_runs
-- params: run_id
-- agent_variant is the variant the run executed ('original', or the fault of a run-suite run on a
-- faulty target); suite_run_id the suite a run-suite run executed (NULL for other runs).
select run_id, flow, target, agent_variant, nullif(suite_run_id, '') as suite_run_id, status, started_at,
       finished_at, duration_s, selector, adat_version
from stg_runs
where run_id = $run_id
