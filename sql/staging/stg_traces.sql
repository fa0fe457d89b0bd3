-- stg_traces: one row per conversation (discovery session or test execution trace), the latest
-- written when a stage was recomputed.
-- grain: run_id, trace_id
-- source: traces
select
    * exclude (_part, _row),
    len(turns) as n_turns
from traces
qualify row_number() over (partition by run_id, trace_id order by (_part, _row) desc) = 1
