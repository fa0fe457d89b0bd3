-- stg_rejudgements: a second verdict on an execution whose test's repeated trials disagree
-- (stages/execution.py); the execution's own verdict stays in stg_verdicts. The latest write wins,
-- as in stg_verdicts.
-- grain: run_id, execution_id
-- source: rejudgements
select
    * exclude (_part, _row, judged),
    coalesce(judged, true) as judged
from rejudgements
qualify row_number() over (partition by run_id, execution_id order by (_part, _row) desc) = 1
