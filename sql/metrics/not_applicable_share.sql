-- not_applicable_share: share of a run's transformation attempts the generator reported not applicable.
-- grain: one row per run_id (runs with at least one transformation attempt)
-- inputs: stg_attempts
-- params: run_id
-- Errors (the generator failed) say nothing about applicability: they are counted in `errors`
-- and left out of the share's denominator. The share is NULL when every attempt was an error.
select
    run_id,
    count(*) as attempts,
    count(*) filter (where outcome = 'not_applicable') as not_applicable,
    count(*) filter (where outcome = 'error') as errors,
    cast(count(*) filter (where outcome = 'not_applicable') as double)
        / nullif(count(*) filter (where outcome <> 'error'), 0) as not_applicable_share
from stg_attempts
where ($run_id is null or run_id = $run_id)
group by run_id
order by run_id
