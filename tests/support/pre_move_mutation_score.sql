-- pre_move_mutation_score: the seeded-fault mutation score as adat computed it before seeded faults
-- moved into the one mutation-testing module (the definition of sql/metrics/mutation_score.sql and
-- sql/intermediate/int_fault_detection.sql at commit 1f1ad45, inlined; read-only, for comparison).
-- grain: one row per run_id that executed a faulty variant
-- params: run_id
-- MS then = faults detected / faults run, with no activation: a test detects fault F when every
-- judged execution of it on the original agent passed (at least one) and one of its executions on F
-- failed with the auditor's label TP attributed to F. Issue 9 requires `adat demo --evaluate`'s
-- mutation score to be unchanged by the move; tests/test_flows/test_evaluate_flow.py and
-- benchmarks/demo_time.py --evaluate compare this with sql/metrics/mutation_score.sql.
with passes_on_original as (
    select run_id, test_id
    from int_judged_executions
    where agent_variant = 'original'
    group by run_id, test_id
    having bool_and(verdict = 'pass')
),
detections as (
    select distinct j.run_id, j.agent_variant as fault, j.test_id
    from int_judged_executions as j
    join stg_execution_labels as l on l.run_id = j.run_id and l.execution_id = j.execution_id
    join passes_on_original as o on o.run_id = j.run_id and o.test_id = j.test_id
    where j.agent_variant <> 'original' and j.verdict = 'fail'
      and l.label = 'TP' and l.attributed_fault = j.agent_variant
),
tests_run as (
    select distinct run_id, agent_variant as fault, test_id
    from stg_executions
    where agent_variant <> 'original'
),
per_fault as (
    select r.run_id, r.fault, bool_or(d.test_id is not null) as detected
    from tests_run as r
    left join detections as d on d.run_id = r.run_id and d.fault = r.fault and d.test_id = r.test_id
    where ($run_id is null or r.run_id = $run_id)
    group by r.run_id, r.fault
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
