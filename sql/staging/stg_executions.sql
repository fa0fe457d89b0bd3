-- stg_executions: one row per run of a test against the original agent or a faulty variant.
-- trial numbers repeated executions of a test on a variant (1..k, `run-suite --repeat k`); parts
-- written before the field existed hold one trial per test: 1.
-- grain: run_id, execution_id
-- source: executions
select
    * exclude (_part, _row, trial),
    coalesce(trial, 1) as trial,
    len(turns) as n_turns,
    error is not null as has_error
from executions
qualify row_number() over (partition by run_id, execution_id order by (_part, _row) desc) = 1
