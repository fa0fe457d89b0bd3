-- mutation_score: MS = killed / activated variants, one formula for TDAD prompt mutants and seeded faults.
-- grain: one row per run_id and kind ('prompt' | 'fault') that has variants in stg_mutants
-- inputs: stg_mutants, int_variant_kills, int_tdad_compile_status
-- params: run_id, faults
-- faults: comma-separated variant ids to count (`adat regress --fault X`); null = every variant.
-- A variant is a stg_mutants row: a prompt mutant of a TDAD intent, or a seeded fault the
-- regression ran. Activated: its probe's predicates held on it and not on the base (a prompt
-- mutant: its activation probe; a fault: the side log of the suite run on it shows its rule
-- decided unlike the shipped rule -- adat.mutation). Killed: some test kills it in
-- int_variant_kills, mutation testing's one kill rule (fails on the variant, passed on the base
-- in every run there). Variants that were not activated are never scored: not_activated names
-- them; survivors names the activated, unkilled ones; killed_variants the killed ones.
-- mutation_score is NULL when nothing was activated. activation_rate = activated / variants: for
-- prompt mutants (one per intent of the pack) TDAD's activated / intents, printed next to MS; for
-- seeded faults activated / seeded -- their headline is detected / seeded, seeded_fault_detection.sql.
-- Identical mutants count once: activated prompt mutants with the same mutant prompt
-- (prompt_digest) from different intents are one mutant in activated / killed / MS, named by
-- their intents joined with '+' (e.g. 'A+B') in the lists and in `duplicates`; activated_intents
-- counts intents, so activation_rate stays TDAD's activated / intents. Seeded faults never merge.
-- compile_status: for prompt mutants, whether the run's compilation converged
-- (int_tdad_compile_status: converged | not_converged | not_compiled), so an MS of a prompt that
-- never compiled is marked so; NULL for seeded faults.
with variants as (
    select run_id, mutant_id as variant, kind, activated,
           -- one mutant per mutated artifact: activated prompt mutants merge on their prompt
           case when kind = 'prompt' and activated and prompt_digest <> '' then 'prompt:' || prompt_digest
                else 'variant:' || mutant_id end as mutant_key
    from stg_mutants
    where ($run_id is null or run_id = $run_id)
      and ($faults is null or list_contains(string_split($faults, ','), mutant_id))
),
killed as (
    select run_id, variant, bool_or(kills) as killed
    from int_variant_kills
    group by run_id, variant
),
per_intent as (
    select v.run_id, v.variant, v.kind, v.activated, v.mutant_key, coalesce(k.killed, false) as killed
    from variants as v
    left join killed as k on k.run_id = v.run_id and k.variant = v.variant
),
per_mutant as (
    select run_id, kind, mutant_key,
           string_agg(variant, '+' order by variant) as variant,
           count(*) as intents,
           bool_or(activated) as activated,
           bool_or(killed) as killed
    from per_intent
    group by run_id, kind, mutant_key
)
select
    m.run_id,
    m.kind,
    sum(m.intents)::bigint as variants,
    count(*) filter (where activated) as activated,
    coalesce(sum(intents) filter (where activated), 0)::bigint as activated_intents,
    count(*) filter (where activated and killed) as killed,
    cast(count(*) filter (where activated and killed) as double)
        / nullif(count(*) filter (where activated), 0) as mutation_score,
    cast(coalesce(sum(intents) filter (where activated), 0) as double) / sum(intents) as activation_rate,
    coalesce(list(variant order by variant) filter (where activated and killed), []) as killed_variants,
    coalesce(list(variant order by variant) filter (where activated and not killed), []) as survivors,
    coalesce(list(variant order by variant) filter (where not activated), []) as not_activated,
    coalesce(list(variant order by variant) filter (where intents > 1), []) as duplicates,
    any_value(case when m.kind = 'prompt' then s.compile_status end) as compile_status
from per_mutant as m
left join int_tdad_compile_status as s on s.run_id = m.run_id
group by m.run_id, m.kind
order by m.run_id, m.kind
