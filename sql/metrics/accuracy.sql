-- accuracy: (TP + TN) / labelled executions, INC labels included in the denominator.
-- grain: one row per run_id and agent_variant ('original' or a fault id)
-- inputs: stg_execution_labels
-- params: run_id
select
    run_id,
    agent_variant,
    count(*) filter (where label = 'TP') as tp,
    count(*) filter (where label = 'TN') as tn,
    count(*) as labelled,
    cast(count(*) filter (where label in ('TP', 'TN')) as double) / count(*) as accuracy
from stg_execution_labels
where ($run_id is null or run_id = $run_id)
group by run_id, agent_variant
order by run_id, agent_variant <> 'original', agent_variant
