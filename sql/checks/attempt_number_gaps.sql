-- attempt_number_gaps: attempt numbers of a run that are not exactly 1, 2, ..., max.
-- grain: one row per violating (run_id, attempt_no)
-- inputs: stg_attempts
-- params: run_id
-- Missing numbers between 1 and the run's largest attempt_no are reported as 'missing';
-- numbers below 1 as 'below 1'. N_n reads attempt_no, so a gap would shift it.
with attempts as (
    select run_id, attempt_no from stg_attempts where ($run_id is null or run_id = $run_id)
),
expected as (
    select run_id, unnest(range(1, max(attempt_no) + 1)) as attempt_no
    from attempts
    group by run_id
)
select x.run_id, x.attempt_no, 'missing' as problem
from expected as x
where not exists (select 1 from attempts as a where a.run_id = x.run_id and a.attempt_no = x.attempt_no)
union all
select run_id, attempt_no, 'below 1' as problem
from attempts
where attempt_no < 1
order by run_id, attempt_no
