-- verdict_changes: the verdict of each test in run_a and in run_b, same test id and agent variant,
-- changed ones first and pass -> fail before every other change.
-- grain: one row per test_id and variant_key judged in run_a or run_b
-- inputs: int_keyed_test_verdicts
-- params: run_a, run_b
-- variant_key is '(run target)' for executions on the variant each run was started against (its
-- runs.agent_variant: 'original', or the fault of a run-suite on a faulty target), so a suite
-- run on the original and one on a fault compare test by test; other variants (an evaluation's
-- faults) match by name. verdict_a / verdict_b is NULL when that run did not judge the test.
-- change is 'pass -> fail', …, 'unchanged', 'only in a' or 'only in b'.
with keyed as (
    select * from int_keyed_test_verdicts where run_id in ($run_a, $run_b)
),
a as (select * from keyed where run_id = $run_a),
b as (select * from keyed where run_id = $run_b),
joined as (
    select
        coalesce(a.test_id, b.test_id) as test_id,
        coalesce(a.variant_key, b.variant_key) as variant_key,
        coalesce(b.agent_variant, a.agent_variant) as agent_variant,
        coalesce(nullif(b.kind, '?'), a.kind) as kind,  -- '?': a run without the test record
        coalesce(b.goal, a.goal) as goal,
        a.verdict as verdict_a,
        b.verdict as verdict_b,
        b.rationale as rationale_b,
        b.execution_id as execution_id_b
    from a
    full join b on a.test_id = b.test_id and a.variant_key = b.variant_key
)
select
    *,
    case
        when verdict_a is null then 'only in b'
        when verdict_b is null then 'only in a'
        when verdict_a = verdict_b then 'unchanged'
        else verdict_a || ' -> ' || verdict_b
    end as change
from joined
order by
    case when verdict_a = 'pass' and verdict_b = 'fail' then 0
         when verdict_a is not null and verdict_b is not null and verdict_a <> verdict_b then 1
         when verdict_a is null or verdict_b is null then 2
         else 3 end,
    variant_key <> '(run target)', variant_key, test_id
