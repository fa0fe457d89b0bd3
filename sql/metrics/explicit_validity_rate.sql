-- explicit_validity_rate: V_E/C, explicitly valid boundary tests over counted tests.
-- grain: one row per run_id and kind (plain | transformed | direct | agenteval | spec | all)
-- inputs: stg_tests, stg_audit_labels
-- params: run_id
-- As validity_rate, with V_E = tests the auditor labelled 'explicit' (a mapping supported by
-- passages from the agent's artifacts). Unlabelled tests count as not explicitly valid.
select
    t.run_id,
    case when grouping(t.kind) = 1 then 'all' else t.kind end as kind,
    count(*) as counted,
    count(*) filter (where a.is_explicit) as explicit_valid,
    cast(count(*) filter (where a.is_explicit) as double) / count(*) as explicit_validity_rate
from stg_tests as t
left join stg_audit_labels as a on a.run_id = t.run_id and a.test_id = t.test_id
where ($run_id is null or t.run_id = $run_id)
group by grouping sets ((t.run_id, t.kind), (t.run_id))
order by t.run_id, grouping(t.kind), t.kind
