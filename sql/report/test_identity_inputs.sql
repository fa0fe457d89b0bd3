-- test_identity_inputs: what a test's content identity is made of, for every test a run built or
-- executed (a run-suite run executes another run's tests): kind, instruction, expected side and
-- the text of what it checks — its goal, which states the statement it tests (for a transformed
-- test that moved to another side, the statement it moved to, not the one it was made from) —
-- with the statement it was made from beside it.
-- grain: one row per test_id of run $run_id
-- inputs: stg_tests, stg_executions, stg_statements
-- params: run_id
-- Test ids embed the run that wrote them, so a test id names one test across the warehouse; a
-- run-suite run holds a copy of its suite's tests (same ids), and the statement is looked up by
-- its id in whichever run holds it (statement ids embed their run too).
with ids as (
    select test_id from stg_tests where run_id = $run_id
    union
    select test_id from stg_executions where run_id = $run_id
),
content as (
    select * from stg_tests
    qualify row_number() over (partition by test_id order by run_id) = 1
)
select
    i.test_id,
    t.run_id as built_in,
    coalesce(t.kind, '?') as kind,
    coalesce(t.instruction_id, '') as instruction_id,
    coalesce(t.expected_side, '') as expected_side,
    t.statement_id,
    coalesce(t.goal, s.text, '') as text,
    s.text as statement_text,
    t.goal
from ids as i
left join content as t on t.test_id = i.test_id
left join (
    select statement_id, text from stg_statements
    qualify row_number() over (partition by statement_id order by run_id) = 1
) as s on s.statement_id = t.statement_id
order by i.test_id
