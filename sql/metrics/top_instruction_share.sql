-- top_instruction_share: Top, the share of a run's attempts that use its most used instruction.
-- grain: one row per run_id (runs with at least one transformation attempt)
-- inputs: stg_attempts
-- params: run_id
-- Every attempt counts, not-applicable ones included (paper Table 3: "percentage of a run's
-- attempts that use the run's most used instruction"). Ties: the smallest instruction_id is
-- named; top_ties says how many instructions share the maximum.
with uses as (
    select run_id, instruction_id, count(*) as uses
    from stg_attempts
    where ($run_id is null or run_id = $run_id)
    group by run_id, instruction_id
),
ranked as (
    select
        *,
        sum(uses) over (partition by run_id) as attempts,
        max(uses) over (partition by run_id) as max_uses,
        row_number() over (partition by run_id order by uses desc, instruction_id) as place
    from uses
)
select
    run_id,
    cast(attempts as bigint) as attempts,
    instruction_id as top_instruction,
    uses as top_attempts,
    cast(uses as double) / attempts as top_share,
    (select count(*) from uses as u where u.run_id = ranked.run_id and u.uses = ranked.max_uses) as top_ties
from ranked
where place = 1
order by run_id
