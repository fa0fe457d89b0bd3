-- false_alarm_rate: FAR = FP / (FP + TN) over the auditor's execution labels.
-- grain: one row per run_id and agent_variant ('original' or a fault id)
-- inputs: stg_execution_labels
-- params: run_id
-- NULL when the variant has no FP and no TN label (nothing the judge could have falsely alarmed on).
select
    run_id,
    agent_variant,
    count(*) filter (where label = 'FP') as fp,
    count(*) filter (where label = 'TN') as tn,
    cast(count(*) filter (where label = 'FP') as double)
        / nullif(count(*) filter (where label in ('FP', 'TN')), 0) as false_alarm_rate
from stg_execution_labels
where ($run_id is null or run_id = $run_id)
group by run_id, agent_variant
order by run_id, agent_variant <> 'original', agent_variant
