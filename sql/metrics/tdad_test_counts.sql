-- tdad_test_counts: visible, hidden and v1-invariant spec tests of each spec version run.
-- grain: one row per run_id (runs with reruns on the compiled prompt)
-- inputs: int_spec_test_reruns
-- params: run_id
-- Counted over the reliability stage, which reruns every test of the run on the compiled prompt
-- (scope 'suite': the spec version's own visible and hidden tests; 'invariant': v1 invariants).
select
    run_id,
    any_value(spec_id) filter (where scope = 'suite') as spec_id,
    any_value(spec_version) filter (where scope = 'suite') as spec_version,
    count(*) filter (where scope = 'suite' and split = 'visible') as visible_tests,
    count(*) filter (where scope = 'suite' and split = 'hidden') as hidden_tests,
    count(*) filter (where scope = 'invariant') as invariant_tests
from int_spec_test_reruns
where ($run_id is null or run_id = $run_id)
group by run_id
order by run_id
