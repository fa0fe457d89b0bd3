-- show_test: one test with its audit label (adat show).
-- grain: at most one row
-- inputs: stg_tests, stg_audit_labels
-- params: run_id, test_id
select
    t.run_id, t.test_id, t.kind, t.statement_id, t.instruction_id, t.goal, t.step_hints,
    t.success_criteria, t.failure_criteria, t.turn_limit, t.expected_side, t.assumed_facts,
    t.provenance, t.produced_by, a.validity, a.reasons as audit_reasons
from stg_tests as t
left join stg_audit_labels as a on a.run_id = t.run_id and a.test_id = t.test_id
where t.run_id = $run_id and t.test_id = $test_id
