-- transformation_progress: after each transformation attempt, the transformed tests written so
-- far and the distinct statements they cover (the report's "coverage vs attempts" plot).
-- grain: one row per run_id and attempt_no
-- inputs: stg_attempts
-- params: run_id
-- A statement is covered from the first attempt that wrote a test for it; later tests for the
-- same statement add to transformed_tests, not to statements_covered.
with marked as (
    select
        run_id,
        attempt_no,
        applicable,
        test_id is not null as wrote_test,
        test_id is not null and row_number() over (
            partition by run_id, statement_id, test_id is not null order by attempt_no) = 1 as first_for_statement
    from stg_attempts
    where ($run_id is null or run_id = $run_id)
)
select
    run_id,
    attempt_no,
    applicable,
    cast(sum(cast(wrote_test as integer)) over w as bigint) as transformed_tests,
    cast(sum(cast(first_for_statement as integer)) over w as bigint) as statements_covered
from marked
window w as (partition by run_id order by attempt_no rows between unbounded preceding and current row)
order by run_id, attempt_no
