-- hidden_tests_in_compilation: hidden spec tests that ran while a prompt was being compiled.
-- grain: one row per violating compile result (run_id, result_id)
-- inputs: stg_compile_results, stg_spec_tests
-- params: run_id
-- TDAD: only visible tests drive compilation; a hidden test in compile_results (by its own
-- split, or by the split TestSmith gave its id in the run) means the split leaked.
select c.run_id, c.result_id, c.test_id, c.iteration, c.split,
       'hidden test in compilation' as problem
from stg_compile_results as c
left join stg_spec_tests as t on t.run_id = c.run_id and t.test_id = c.test_id
where (c.split = 'hidden' or t.split = 'hidden') and ($run_id is null or c.run_id = $run_id)
order by c.run_id, c.result_id
