-- tdad_mutation_score: MS = killed / activated prompt mutants; survivors and non-activated listed apart.
-- grain: one row per run_id (runs with prompt mutants)
-- inputs: stg_mutants, int_variant_kills
-- params: run_id
-- Killed: some visible test kills it (int_variant_kills: fails on the mutant, passed on the
-- compiled prompt in all reruns). A mutant whose activation probe never held is not scored.
with killed as (
    select run_id, variant, bool_or(kills) as killed
    from int_variant_kills
    where kind = 'prompt'
    group by run_id, variant
),
per_mutant as (
    select m.run_id, m.mutant_id, m.activated, coalesce(k.killed, false) as killed
    from stg_mutants as m
    left join killed as k on k.run_id = m.run_id and k.variant = m.mutant_id
    where m.kind = 'prompt' and ($run_id is null or m.run_id = $run_id)
)
select
    run_id,
    count(*) as mutants,
    count(*) filter (where activated) as activated,
    count(*) filter (where activated and killed) as killed,
    cast(count(*) filter (where activated and killed) as double)
        / nullif(count(*) filter (where activated), 0) as mutation_score,
    coalesce(list(mutant_id order by mutant_id) filter (where activated and not killed), []) as survivors,
    coalesce(list(mutant_id order by mutant_id) filter (where not activated), []) as not_activated
from per_mutant
group by run_id
order by run_id
