-- mutation_score: detected seeded faults over the faults run (paper §4.3, RQ4).
-- grain: one row per run_id (runs that executed at least one faulty variant)
-- inputs: int_variant_kills
-- params: run_id, faults
-- faults: comma-separated fault ids to count (`adat regress --fault X`); null = every fault run.
-- Detection as in fault_detection.sql (the per-fault table): pass on the original, fail on the
-- faulty agent, auditor label TP with attributed_fault = the fault -- mutation testing's one kill
-- rule (intermediate/int_variant_kills.sql, kind 'fault'; TDAD's prompt mutants use the same
-- view). faults = distinct agent_variant <> 'original' executed in the run (each counts as
-- activated); a fault the run never executed is not in the denominator. detected_faults lists
-- the detected fault ids.
with per_fault as (
    select run_id, variant as fault, bool_or(kills) as detected
    from int_variant_kills
    where kind = 'fault' and ($run_id is null or run_id = $run_id)
      and ($faults is null or list_contains(string_split($faults, ','), variant))
    group by run_id, variant
)
select
    run_id,
    count(*) as faults,
    count(*) filter (where detected) as faults_detected,
    cast(count(*) filter (where detected) as double) / count(*) as mutation_score,
    coalesce(list(fault order by fault) filter (where detected), []) as detected_faults
from per_fault
group by run_id
order by run_id
