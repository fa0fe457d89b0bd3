-- paired_verdict_changes: verdict_changes.sql over a pairing of tests instead of equal test ids —
-- the verdict of each paired test in run_a and in run_b, per agent variant, changed ones first.
-- grain: one row per pair (test_a, test_b) and variant_key judged in run_a or run_b
-- inputs: int_keyed_test_verdicts
-- params: run_a, run_b, tests_a, tests_b
-- tests_a[i] and tests_b[i] are the i-th pair (adat.suites.identity: same kind, instruction and
-- expected side, statements matched by embedding). variant_key as in verdict_changes.sql.
with pairs as (
    select unnest($tests_a) as test_a, unnest($tests_b) as test_b
),
keyed as (
    select * from int_keyed_test_verdicts where run_id in ($run_a, $run_b)
),
a as (select k.*, p.test_b from keyed as k join pairs as p on p.test_a = k.test_id where k.run_id = $run_a),
b as (select k.*, p.test_a from keyed as k join pairs as p on p.test_b = k.test_id where k.run_id = $run_b),
joined as (
    select
        coalesce(a.test_id, b.test_a) as test_id_a,
        coalesce(b.test_id, a.test_b) as test_id,
        coalesce(a.variant_key, b.variant_key) as variant_key,
        coalesce(b.agent_variant, a.agent_variant) as agent_variant,
        coalesce(nullif(b.kind, '?'), a.kind) as kind,
        coalesce(b.goal, a.goal) as goal,
        a.verdict as verdict_a,
        b.verdict as verdict_b,
        b.rationale as rationale_b,
        b.execution_id as execution_id_b
    from a
    full join b on a.test_id = b.test_a and a.test_b = b.test_id and a.variant_key = b.variant_key
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
