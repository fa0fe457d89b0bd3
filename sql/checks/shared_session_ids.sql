-- shared_session_ids: target session ids used by more than one discovery session or execution of a run.
-- grain: one row per violating (run_id, session_id)
-- inputs: stg_traces, stg_executions
-- params: run_id
-- The rule side log joins sessions by (run_id, session_id) only (rule_coverage, the auditor),
-- so a session id reused by another discovery trace or an execution of the same run would mix
-- their rule events. Empty ids (a reset that failed) and execution-kind traces (the trace of an
-- execution, same session) are not counted.
with sessions as (
    select run_id, session_id, 'discovery trace ' || trace_id as used_by
    from stg_traces
    where kind = 'discovery' and session_id <> ''
    union all
    select run_id, session_id, 'execution ' || execution_id
    from stg_executions
    where session_id <> ''
)
select run_id, session_id, count(*) as uses, list(used_by order by used_by) as used_by
from sessions
where ($run_id is null or run_id = $run_id)
group by run_id, session_id
having count(*) > 1
order by run_id, session_id
