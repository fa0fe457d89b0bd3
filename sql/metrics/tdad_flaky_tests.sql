-- tdad_flaky_tests: spec tests that both passed and failed across their reruns on the compiled prompt.
-- grain: one row per run_id, scope and test_id (flaky tests only)
-- inputs: int_spec_test_reruns
-- params: run_id
select run_id, scope, test_id, split, k, passes, pass_rate
from int_spec_test_reruns
where passes > 0 and passes < k and ($run_id is null or run_id = $run_id)
order by run_id, scope, test_id
