-- stg_runs: one row per pipeline run, the latest row written for it (a run is written when it
-- starts and again when it finishes).
-- grain: run_id
-- source: runs (runs/runs/run_id=*/part-*.parquet)
select
    * exclude (_part, _row),
    date_diff('millisecond', started_at, finished_at) / 1000.0 as duration_s
from runs
qualify row_number() over (partition by run_id order by (_part, _row) desc) = 1
