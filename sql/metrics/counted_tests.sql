-- counted_tests: C, the counted tests of a run, per test kind and over all kinds ('all').
-- grain: one row per run_id and kind (plain | transformed | direct | agenteval | spec | all)
-- inputs: stg_tests, stg_audit_labels
-- params: run_id
-- RQ1/RQ3 count every test of a suite (kind 'all'); RQ2 counts a run's transformed tests (kind
-- 'transformed'). audited = counted tests the auditor labelled; an unlabelled test counts as not
-- valid in validity_rate / explicit_validity_rate, so audited < counted flags a missing audit.
select
    t.run_id,
    case when grouping(t.kind) = 1 then 'all' else t.kind end as kind,
    count(*) as counted,
    count(a.test_id) as audited
from stg_tests as t
left join stg_audit_labels as a on a.run_id = t.run_id and a.test_id = t.test_id
where ($run_id is null or t.run_id = $run_id)
group by grouping sets ((t.run_id, t.kind), (t.run_id))
order by t.run_id, grouping(t.kind), t.kind
