-- attempt_applicability_mismatch: attempts where applicable and "wrote a test" disagree.
-- grain: one row per violating attempt (run_id, attempt_no)
-- inputs: stg_attempts
-- params: run_id
-- An attempt that wrote a test (test_id set) must be applicable, and an applicable attempt
-- must have written one: a generator failure is recorded as not applicable with a reason.
select run_id, attempt_no, applicable, test_id,
       case when applicable then 'applicable but no test_id'
            else 'not applicable but test_id set' end as problem
from stg_attempts
where ($run_id is null or run_id = $run_id)
  and (applicable and test_id is null or not applicable and test_id is not null)
order by run_id, attempt_no
