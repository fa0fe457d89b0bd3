-- execution_label_counts: the auditor's TP / FP / FN / TN / INC labels of executions, per test kind.
-- grain: one row per run_id, agent_variant and kind (plain | transformed | direct | agenteval | spec | all)
-- inputs: stg_execution_labels, stg_tests
-- params: run_id
-- agent_variant is 'original' or a fault id. Labels exist only for executions of valid boundary
-- tests (paper §4.3); labelled = all labels, INC included. kind is the labelled execution's
-- test's kind; 'all' is every label of the run and variant (Table 4; sum the 'all' rows of the
-- faulty variants for Table 5). A variant with any label gets a row for every kind of its run's
-- tests, so a kind without labels counts 0 instead of having no row (Table 2's TP of a kind is 0,
-- not unknown, once the run is labelled). A label whose test is not among its run's tests
-- (checks/executions_without_test.sql) counts in 'all' and in a row whose kind is NULL.
with labels as (
    select l.run_id, l.agent_variant, t.kind, l.label
    from stg_execution_labels as l
    left join stg_tests as t on t.run_id = l.run_id and t.test_id = l.test_id
    where ($run_id is null or l.run_id = $run_id)
),
empty_kinds as (  -- one label-less row per labelled variant and kind of the run's tests
    -- distinct before the join: labels x tests of a run would be quadratic in the run's size
    select v.run_id, v.agent_variant, k.kind, cast(null as varchar) as label
    from (select distinct run_id, agent_variant from labels) as v
    join (select distinct run_id, kind from stg_tests where ($run_id is null or run_id = $run_id)) as k
        on k.run_id = v.run_id
),
counted as (
    select * from labels
    union all
    select * from empty_kinds
)
select
    run_id,
    agent_variant,
    case when grouping(kind) = 1 then 'all' else kind end as kind,
    count(label) as labelled,
    count(*) filter (where label = 'TP') as tp,
    count(*) filter (where label = 'FP') as fp,
    count(*) filter (where label = 'FN') as fn,
    count(*) filter (where label = 'TN') as tn,
    count(*) filter (where label = 'INC') as inc
from counted
group by grouping sets ((run_id, agent_variant, kind), (run_id, agent_variant))
order by run_id, agent_variant <> 'original', agent_variant, grouping(kind), kind
