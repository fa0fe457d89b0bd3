-- attempts_without_test: attempts that name a test the run does not hold.
-- grain: one row per violating attempt (run_id, attempt_no)
-- inputs: stg_attempts, stg_tests
-- params: run_id
select a.run_id, a.attempt_no, a.test_id, 'test not found in the run' as problem
from stg_attempts as a
where a.test_id is not null
  and ($run_id is null or a.run_id = $run_id)
  and not exists (select 1 from stg_tests as t where t.run_id = a.run_id and t.test_id = a.test_id)
order by a.run_id, a.attempt_no
