-- mutation_score_activated: TDAD's mutation score over activated mutants (killed / activated).
-- grain: one row per run_id (runs that executed at least one agent_variant other than 'original')
-- inputs: int_judged_executions, stg_executions
-- params: run_id
-- A mutant is an agent_variant <> 'original'. TDAD runs activation probes; here the executions
-- are the probes: a mutant is activated when, for at least one test, a verdict on the mutant
-- differs from a verdict of the same test on the original in the same run. It is killed when a
-- test that is not hidden (visibility 'visible', or '' for non-TDAD suites) passes on the
-- original and fails on the mutant (TDAD: "killed when at least one visible test fails"; the
-- pass on the original keeps tests that fail anyway from counting). Killed implies activated.
-- Non-activated mutants are left out of the score (TDAD); survivors lists activated, unkilled
-- mutants. mutation_score is NULL when no mutant is activated.
with judged as (
    select run_id, test_id, agent_variant, verdict, visibility
    from int_judged_executions
    where ($run_id is null or run_id = $run_id)
),
pairs as (
    select m.run_id, m.agent_variant as mutant, m.visibility, m.verdict as mutant_verdict,
           o.verdict as original_verdict
    from judged as m
    join judged as o on o.run_id = m.run_id and o.test_id = m.test_id and o.agent_variant = 'original'
    where m.agent_variant <> 'original'
),
mutants as (
    select distinct run_id, agent_variant as mutant
    from stg_executions
    where agent_variant <> 'original' and ($run_id is null or run_id = $run_id)
),
per_mutant as (
    select
        mu.run_id,
        mu.mutant,
        coalesce(bool_or(p.mutant_verdict <> p.original_verdict), false) as activated,
        coalesce(bool_or(coalesce(p.visibility, '') <> 'hidden'
                         and p.original_verdict = 'pass' and p.mutant_verdict = 'fail'), false) as killed
    from mutants as mu
    left join pairs as p on p.run_id = mu.run_id and p.mutant = mu.mutant
    group by mu.run_id, mu.mutant
)
select
    run_id,
    count(*) as mutants,
    count(*) filter (where activated) as activated,
    count(*) filter (where activated and killed) as killed,
    cast(count(*) filter (where activated and killed) as double)
        / nullif(count(*) filter (where activated), 0) as mutation_score,
    coalesce(list(mutant order by mutant) filter (where activated and not killed), []) as survivors
from per_mutant
group by run_id
order by run_id
