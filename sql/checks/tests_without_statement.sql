-- tests_without_statement: plain and transformed tests whose statement is missing.
-- grain: one row per violating test (run_id, test_id)
-- inputs: stg_tests, stg_statements
-- params: run_id
-- Plain and transformed tests are made from a statement, so statement_id must be set and name
-- a statement of a run holding the test: its own run, or - for a suite copied into another run
-- (run_suite) - the run it was copied from (test ids hash their source run, so a test_id held
-- by several runs is one test).
with homes as (
    select distinct test_id, run_id as home_run_id from stg_tests
)
select t.run_id, t.test_id, t.kind, t.statement_id,
       case when t.statement_id is null then 'statement_id is null'
            else 'statement not found' end as problem
from stg_tests as t
where t.kind in ('plain', 'transformed')
  and ($run_id is null or t.run_id = $run_id)
  and not exists (
      select 1
      from stg_statements as s
      join homes as h on h.home_run_id = s.run_id
      where h.test_id = t.test_id and s.statement_id = t.statement_id)
order by t.run_id, t.test_id
