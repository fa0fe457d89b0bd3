-- stg_stage_runs: the latest start/finish mark of each resumable stage of a run, with the cache
-- key it ran under (a resume continues only under the same key).
-- grain: run_id, stage
-- source: stage_runs
select * exclude (_part, _row)
from stage_runs
qualify row_number() over (partition by run_id, stage order by ts desc, _part desc, _row desc) = 1
