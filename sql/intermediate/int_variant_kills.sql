-- int_variant_kills: every (variant, test) pair of mutation testing, and whether the test kills the variant.
-- grain: run_id, variant, test_id
-- inputs: int_spec_test_reruns, stg_mutant_results, stg_mutants, int_judged_executions, stg_executions, stg_execution_labels, stg_runs
-- The one kill rule of mutation testing (DESIGN §7, §9), for TDAD prompt mutants (kind 'prompt')
-- and AdaT2's seeded retail faults (kind 'fault') alike: a test kills a variant when it FAILS on
-- the variant AND PASSED on the unmutated base in every one of its runs there (at least one), so
-- a test flaky or failing on the base kills nothing.
--   * prompt mutants: base = the spec_reruns of the compiled prompt (k reruns); fails = a visible
--     test run on the mutant did not pass (only visible tests run on mutants). Activation: the
--     mutant's own probe (stg_mutants.activated).
--   * seeded faults: base = the judged executions on the original agent in base_run_id: the run
--     itself when it executed the original (an evaluation writes its faults into the suite run),
--     else the suite run a run-suite run executed (stg_runs.suite_run_id: `run-suite` on a faulty
--     target runs only the fault). fails = an execution on the fault with the verdict 'fail' that
--     the auditor labels TP and attributes to that fault (paper §4.3). Activation: the fault's
--     stg_mutants row (kind 'fault', written by the regression from the side log: some evaluation
--     of its rule decided unlike the shipped rule, adat.mutation.seeded_faults); no row (a
--     run-suite run measures no activation) = NULL, not measured -- never "not activated".
-- Besides the audited rule, each pair says what is known without an audit: variant_fail_verdict
-- (a judged 'fail' on the variant), variant_labelled (the auditor labelled the variant's
-- executions of the test; NULL for prompt mutants, which have no auditor) and pass_to_fail (passed
-- on the base in every run there, fails on the variant: what a CI gate on the variant sees).
-- Scored by metrics/mutation_score.sql (MS = killed / activated, both kinds).
with spec_base as (
    select run_id, test_id, k as base_runs, pass_k as base_pass_all
    from int_spec_test_reruns
    where scope = 'suite'
),
spec_variant as (
    select run_id, agent_variant as variant, test_id, bool_or(not passed) as variant_failed,
           bool_or(not passed) as variant_fail_verdict, cast(null as boolean) as variant_labelled
    from stg_mutant_results
    where scope = 'suite'
    group by run_id, agent_variant, test_id
),
fault_executions as (  -- every execution: its verdict when judged (j) and the auditor's label; read once
    select e.run_id, e.agent_variant, e.test_id, j.execution_id is not null as judged, j.verdict, l.label,
        l.attributed_fault
    from stg_executions as e
    left join int_judged_executions as j on j.run_id = e.run_id and j.execution_id = e.execution_id
    left join stg_execution_labels as l on l.run_id = e.run_id and l.execution_id = e.execution_id
),
run_bases as (  -- per run with executions: the run whose executions on the original are its base
    select runs.run_id,
           case when runs.own_original or coalesce(r.suite_run_id, '') = '' then runs.run_id
                else r.suite_run_id end as base_run_id
    from (select run_id, bool_or(agent_variant = 'original') as own_original
          from fault_executions group by run_id) as runs
    left join stg_runs as r on r.run_id = runs.run_id
),
fault_base as (
    select b.run_id, b.base_run_id, x.test_id, count(*) as base_runs, bool_and(x.verdict = 'pass') as base_pass_all
    from run_bases as b
    join fault_executions as x on x.run_id = b.base_run_id
    where x.agent_variant = 'original' and x.judged
    group by b.run_id, b.base_run_id, x.test_id
),
fault_variant as (
    select
        run_id,
        agent_variant as variant,
        test_id,
        coalesce(bool_or(verdict = 'fail' and label = 'TP' and attributed_fault = agent_variant), false)
            as variant_failed,
        coalesce(bool_or(judged and verdict = 'fail'), false) as variant_fail_verdict,
        bool_or(label is not null) as variant_labelled
    from fault_executions
    where agent_variant <> 'original'
    group by run_id, agent_variant, test_id
),
pairs as (
    select v.run_id, v.variant, m.kind, m.activated, v.run_id as base_run_id, v.test_id, b.base_runs,
           b.base_pass_all, v.variant_failed, v.variant_fail_verdict, v.variant_labelled
    from spec_variant as v
    join stg_mutants as m on m.run_id = v.run_id and m.mutant_id = v.variant
    left join spec_base as b on b.run_id = v.run_id and b.test_id = v.test_id
    union all
    select v.run_id, v.variant, 'fault', m.activated, coalesce(rb.base_run_id, v.run_id), v.test_id, b.base_runs,
           b.base_pass_all, v.variant_failed, v.variant_fail_verdict, v.variant_labelled
    from fault_variant as v
    left join stg_mutants as m on m.run_id = v.run_id and m.mutant_id = v.variant and m.kind = 'fault'
    left join run_bases as rb on rb.run_id = v.run_id
    left join fault_base as b on b.run_id = v.run_id and b.test_id = v.test_id
)
select
    run_id,
    variant,
    kind,
    activated,
    base_run_id,
    test_id,
    coalesce(base_runs, 0) as base_runs,
    coalesce(base_pass_all, false) as base_pass_all,
    variant_failed,
    variant_failed and coalesce(base_pass_all, false) as kills,
    variant_fail_verdict,
    variant_labelled,
    variant_fail_verdict and coalesce(base_pass_all, false) as pass_to_fail
from pairs
