-- seeded_fault_detection: the headline of seeded-fault mutation testing: detected / seeded, with activated / seeded and the unreached faults named.
-- grain: one row per run_id whose evaluation or regression seeded faults (stg_mutants rows of kind 'fault')
-- inputs: stg_mutants, int_variant_kills
-- params: run_id, faults
-- faults: comma-separated fault ids to count (`adat regress --fault X`); null = every fault seeded.
-- The paper (AdaT2 §4.3, DESIGN §7) counts detected faults out of ALL seeded ones: a fault the
-- suite never reaches is a miss, and it is exactly what a user needs to see. So the headline is
-- detection_rate = detected / seeded, never killed / activated (mutation_score.sql, TDAD's MS,
-- which leaves unreached faults out of its denominator and so cannot show them).
--   * seeded: faults the evaluation ran (one stg_mutants row each, written by the regression).
--   * detected: some test detects the fault -- int_variant_kills' one kill rule (passed on the
--     original in every run there, a judged 'fail' on the fault that the auditor labels TP and
--     attributes to it) -- whether or not the side log shows it activated.
--   * activated / activation_rate: how much of the seeded policy the suite reaches (the fault took
--     effect at its rule in one of the suite's executions, adat.mutation.seeded_faults).
--   * unreached: the faults never activated (not detected unless a kill proves otherwise: then they
--     are also in detected_faults); reached_undetected: activated, and no test detects them.
-- A run-suite run on one faulty target measures no activation and writes no stg_mutants row: it has
-- no row here (fault_detection.sql shows its pass -> fail tests).
with seeded as (
    select run_id, mutant_id as fault, coalesce(activated, false) as activated
    from stg_mutants
    where kind = 'fault'
      and ($run_id is null or run_id = $run_id)
      and ($faults is null or list_contains(string_split($faults, ','), mutant_id))
),
detected as (
    select run_id, variant as fault, bool_or(kills) as detected
    from int_variant_kills
    where kind = 'fault'
    group by run_id, variant
),
per_fault as (
    select s.run_id, s.fault, s.activated, coalesce(d.detected, false) as detected
    from seeded as s
    left join detected as d on d.run_id = s.run_id and d.fault = s.fault
)
select
    run_id,
    count(*) as seeded,
    count(*) filter (where detected) as detected,
    cast(count(*) filter (where detected) as double) / count(*) as detection_rate,
    count(*) filter (where activated) as activated,
    cast(count(*) filter (where activated) as double) / count(*) as activation_rate,
    coalesce(list(fault order by fault) filter (where detected), []) as detected_faults,
    coalesce(list(fault order by fault) filter (where not activated), []) as unreached,
    coalesce(list(fault order by fault) filter (where activated and not detected), []) as reached_undetected
from per_fault
group by run_id
order by run_id
