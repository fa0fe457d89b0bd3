-- int_pass_rates_by_visibility: TDAD's pass rate, the share of judged executions that pass, per visibility split.
-- grain: run_id, agent_variant, visibility ('visible' | 'hidden'; only runs with judged executions of such tests)
-- inputs: int_judged_executions
-- Over executions that have a verdict (inconclusive counts as not passing). With one execution
-- per test this is the share of the split's tests that pass; with repeats, every repeat counts
-- once (see pass_k for "all repeats pass"). Tests without a visibility ('' for AdaT2 suites) are
-- in neither split.
select
    run_id,
    agent_variant,
    visibility,
    count(distinct test_id) as tests,
    count(*) as executions,
    count(*) filter (where verdict = 'pass') as passed,
    cast(count(*) filter (where verdict = 'pass') as double) / count(*) as pass_rate
from int_judged_executions
where visibility in ('visible', 'hidden')
group by run_id, agent_variant, visibility
