-- execution_label_counts: the auditor's TP / FP / FN / TN / INC labels of executions.
-- grain: one row per run_id and agent_variant ('original' or a fault id)
-- inputs: stg_execution_labels
-- params: run_id
-- Labels exist only for executions of valid boundary tests (paper §4.3). labelled = all labels,
-- INC included. Sum the rows of the faulty variants for the paper's Table 5.
select
    run_id,
    agent_variant,
    count(*) as labelled,
    count(*) filter (where label = 'TP') as tp,
    count(*) filter (where label = 'FP') as fp,
    count(*) filter (where label = 'FN') as fn,
    count(*) filter (where label = 'TN') as tn,
    count(*) filter (where label = 'INC') as inc
from stg_execution_labels
where ($run_id is null or run_id = $run_id)
group by run_id, agent_variant
order by run_id, agent_variant <> 'original', agent_variant
