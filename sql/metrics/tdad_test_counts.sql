-- tdad_test_counts: visible, hidden and v1-invariant spec tests of each spec version run.
-- grain: one row per run_id (runs with spec tests)
-- inputs: stg_spec_tests
-- params: run_id
select
    run_id,
    any_value(spec_id) filter (where not invariant) as spec_id,
    any_value(spec_version) filter (where not invariant) as spec_version,
    count(*) filter (where split = 'visible' and not invariant) as visible_tests,
    count(*) filter (where split = 'hidden' and not invariant) as hidden_tests,
    count(*) filter (where invariant) as invariant_tests
from stg_spec_tests
where ($run_id is null or run_id = $run_id)
group by run_id
order by run_id
