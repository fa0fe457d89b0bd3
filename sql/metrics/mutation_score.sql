-- mutation_score: detected seeded faults over the faults run (paper §4.3, RQ4).
-- grain: one row per run_id (runs that executed at least one faulty variant)
-- inputs: stg_executions, stg_verdicts, stg_execution_labels
-- params: run_id
-- Detection as in fault_detection.sql (the per-fault table): pass on the original, fail on the
-- faulty agent, auditor label TP with attributed_fault = the fault. faults = distinct
-- agent_variant <> 'original' executed in the run; a fault the run never executed is not in
-- the denominator. detected_faults lists the detected fault ids.
with judged as (
    select e.run_id, e.execution_id, e.test_id, e.agent_variant, v.verdict
    from stg_executions as e
    join stg_verdicts as v on v.run_id = e.run_id and v.execution_id = e.execution_id
    where ($run_id is null or e.run_id = $run_id)
),
passes_on_original as (
    select run_id, test_id
    from judged
    where agent_variant = 'original'
    group by run_id, test_id
    having bool_and(verdict = 'pass')
),
detections as (
    select distinct j.run_id, j.agent_variant as fault, j.test_id
    from judged as j
    join stg_execution_labels as l on l.run_id = j.run_id and l.execution_id = j.execution_id
    join passes_on_original as o on o.run_id = j.run_id and o.test_id = j.test_id
    where j.agent_variant <> 'original' and j.verdict = 'fail'
      and l.label = 'TP' and l.attributed_fault = j.agent_variant
),
faults as (
    select run_id, agent_variant as fault, count(distinct test_id) as tests_run
    from stg_executions
    where agent_variant <> 'original' and ($run_id is null or run_id = $run_id)
    group by run_id, agent_variant
),
per_fault as (
    select f.run_id, f.fault, count(d.test_id) > 0 as detected
    from faults as f
    left join detections as d on d.run_id = f.run_id and d.fault = f.fault
    group by f.run_id, f.fault
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
