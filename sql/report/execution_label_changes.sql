-- execution_label_changes: the auditor's execution labels of the same test and variant in two runs.
-- grain: one row per test_id and agent_variant labelled in run_a or run_b
-- inputs: stg_execution_labels
-- params: run_a, run_b
-- A test with several labelled executions keeps the label of its first execution id. label_a or
-- label_b is NULL when that run has no label for it.
with firsts as (
    select run_id, test_id, agent_variant, label,
           row_number() over (partition by run_id, test_id, agent_variant order by execution_id) as k
    from stg_execution_labels
    where run_id in ($run_a, $run_b)
),
a as (select * from firsts where run_id = $run_a and k = 1),
b as (select * from firsts where run_id = $run_b and k = 1)
select
    coalesce(a.test_id, b.test_id) as test_id,
    coalesce(a.agent_variant, b.agent_variant) as agent_variant,
    a.label as label_a,
    b.label as label_b
from a
full join b on a.test_id = b.test_id and a.agent_variant = b.agent_variant
order by test_id, agent_variant
