-- not_applicable_share: share of a run's transformation attempts the generator reported not applicable.
-- grain: one row per run_id (runs with at least one transformation attempt)
-- inputs: stg_attempts
-- params: run_id
select
    run_id,
    count(*) as attempts,
    count(*) filter (where not applicable) as not_applicable,
    cast(count(*) filter (where not applicable) as double) / count(*) as not_applicable_share
from stg_attempts
where ($run_id is null or run_id = $run_id)
group by run_id
order by run_id
