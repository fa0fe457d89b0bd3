-- gate_tests: every test of a run on the variant the run was started against, with its trials,
-- its history on the original agent, its verdict in the suite run and the auditor's validity —
-- what `run-suite --fail-on` and the JUnit export decide from (src/adat/reporting/gate.py).
-- grain: one row per test_id judged in run_id on its run target
-- inputs: int_test_trials, int_test_verdicts, stg_runs, stg_audit_labels
-- params: run_id, suite_run_id
-- baseline = the suite run and every completed run-suite run on the original agent that started
-- before run_id (test ids belong to one suite, so they are runs of the same suite): its trials
-- and passes on 'original'. validity is the suite run's audit label, 'not audited' without one.
with own as (
    select coalesce(agent_variant, 'original') as variant, started_at from stg_runs where run_id = $run_id
),
baseline_runs as (
    select $suite_run_id as run_id
    union
    select r.run_id
    from stg_runs as r
    where r.flow = 'run_suite' and coalesce(r.agent_variant, 'original') = 'original'
      and r.status = 'completed' and r.run_id <> $run_id
      and r.started_at < (select started_at from own)
),
baseline as (
    select test_id, sum(k) as baseline_trials, sum(passes) as baseline_passes
    from int_test_trials
    where run_id in (select run_id from baseline_runs) and agent_variant = 'original'
    group by test_id
),
suite as (
    select test_id, verdict as suite_verdict
    from int_test_verdicts
    where run_id = $suite_run_id and agent_variant = 'original'
),
audit as (
    select test_id, validity from stg_audit_labels where run_id = $suite_run_id
)
select
    c.test_id, v.kind, v.goal, c.agent_variant, c.k, c.passes, c.fails, c.inconclusive, c.pass_rate, c.pass_k,
    c.flake_class, v.verdict, v.rationale, v.execution_id, v.duration_s, v.error,
    coalesce(b.baseline_trials, 0) as baseline_trials,
    coalesce(b.baseline_passes, 0) as baseline_passes,
    s.suite_verdict,
    coalesce(a.validity, 'not audited') as validity
from int_test_trials as c
join int_test_verdicts as v on v.run_id = c.run_id and v.agent_variant = c.agent_variant and v.test_id = c.test_id
left join baseline as b on b.test_id = c.test_id
left join suite as s on s.test_id = c.test_id
left join audit as a on a.test_id = c.test_id
where c.run_id = $run_id and c.agent_variant = coalesce((select variant from own), 'original')
order by v.kind, c.test_id
