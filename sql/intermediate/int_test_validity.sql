-- int_test_validity: counted tests (C) and how many the auditor labelled, found valid (V) and explicitly valid (V_E).
-- grain: run_id, kind (plain | transformed | direct | agenteval | spec | all)
-- inputs: stg_tests, stg_audit_labels
-- Every test of the run is counted regardless of verdict (paper §4.3). A test without an audit
-- label is neither valid nor explicitly valid: validity is the auditor's finding, and a missing
-- label must not inflate a rate (audited < counted flags a missing audit). 'all' is every kind
-- of the run together.
select
    t.run_id,
    case when grouping(t.kind) = 1 then 'all' else t.kind end as kind,
    count(*) as counted,
    count(a.test_id) as audited,
    count(*) filter (where a.is_valid) as valid,
    count(*) filter (where a.is_explicit) as explicit_valid
from stg_tests as t
left join stg_audit_labels as a on a.run_id = t.run_id and a.test_id = t.test_id
group by grouping sets ((t.run_id, t.kind), (t.run_id))
