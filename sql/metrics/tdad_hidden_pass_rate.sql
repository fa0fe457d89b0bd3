-- tdad_hidden_pass_rate: HPR, the share of hidden spec tests passing on the compiled prompt.
-- grain: one row per run_id (runs with hidden tests rerun on the compiled prompt)
-- inputs: int_spec_test_reruns
-- params: run_id
-- A hidden test counts as passing when its first run (rerun 0) passed; its reruns are pass^k's.
-- Hidden tests are never an input of compilation. A test nothing of which could be observed
-- (not_observable) is not passed; hidden_not_observable says how many of the failures those are.
select
    run_id,
    count(*) as hidden_tests,
    count(*) filter (where first_passed) as hidden_passed,
    count(*) filter (where first_not_observable) as hidden_not_observable,
    cast(count(*) filter (where first_passed) as double) / count(*) as hpr
from int_spec_test_reruns
where scope = 'suite' and split = 'hidden' and ($run_id is null or run_id = $run_id)
group by run_id
order by run_id
