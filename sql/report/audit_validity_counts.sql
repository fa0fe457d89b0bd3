-- audit_validity_counts: the auditor's validity labels per test kind (evaluation only).
-- grain: one row per run_id, kind and validity (explicit | valid | invalid | unaudited)
-- inputs: stg_tests, stg_audit_labels
-- params: run_id
-- unaudited counts the run's tests without an audit label.
select
    t.run_id,
    t.kind,
    coalesce(a.validity, 'unaudited') as validity,
    count(*) as tests
from stg_tests as t
left join stg_audit_labels as a on a.run_id = t.run_id and a.test_id = t.test_id
where ($run_id is null or t.run_id = $run_id)
group by t.run_id, t.kind, coalesce(a.validity, 'unaudited')
order by t.run_id, t.kind, validity
