-- validity_rate: V/C, valid boundary tests (explicitly valid included) over counted tests.
-- grain: one row per run_id and kind (plain | transformed | direct | agenteval | spec | all)
-- inputs: stg_tests, stg_audit_labels
-- params: run_id
-- Every counted test is in the denominator regardless of verdict (paper §4.3). A test without
-- an audit label is not valid: validity is the auditor's finding, and a missing label must not
-- inflate the rate (counted_tests.audited shows how many were labelled).
select
    t.run_id,
    case when grouping(t.kind) = 1 then 'all' else t.kind end as kind,
    count(*) as counted,
    count(*) filter (where a.is_valid) as valid,
    cast(count(*) filter (where a.is_valid) as double) / count(*) as validity_rate
from stg_tests as t
left join stg_audit_labels as a on a.run_id = t.run_id and a.test_id = t.test_id
where ($run_id is null or t.run_id = $run_id)
group by grouping sets ((t.run_id, t.kind), (t.run_id))
order by t.run_id, grouping(t.kind), t.kind
