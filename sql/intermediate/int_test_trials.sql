-- int_test_trials: a test's repeated trials on one agent variant in a run — pass rate, pass^k and
-- its flake class.
-- grain: run_id, agent_variant, test_id (tests with at least one execution that has a verdict)
-- inputs: stg_executions, stg_verdicts, stg_rejudgements
-- k = trials (executions with a verdict row; an unjudged one — a target error — is inconclusive);
-- pass_k is true when all k passed; pass_rate = passes / k. A trial's replies are the digest of
-- the agent's messages in order. flake_class (docs/trials.md):
--   judge-flaky: one transcript judged two ways — a re-judgement unlike the first verdict, or two
--                trials with identical replies and different verdicts;
--   agent-flaky: otherwise, judged trials with different verdicts and different replies;
--   stable:      every judged trial has the same verdict (and no re-judgement disagreed).
with trials as (
    -- a list lambda, not stg_execution_turns: no unnest and no regrouping of every message
    select
        e.run_id, e.agent_variant, e.test_id, e.execution_id, v.verdict, v.judged,
        coalesce(md5(array_to_string(list_transform(list_filter(e.turns, lambda x: x.role = 'agent'),
                                                    lambda x: x.text), chr(30))), '') as reply_digest
    from stg_executions as e
    join stg_verdicts as v on v.run_id = e.run_id and v.execution_id = e.execution_id
),
rejudged as (
    select t.run_id, t.agent_variant, t.test_id, count(*) as rejudged,
           count(*) filter (where j.verdict <> t.verdict) as rejudged_differently
    from trials as t
    join stg_rejudgements as j on j.run_id = t.run_id and j.execution_id = t.execution_id
    where t.judged and j.judged
    group by t.run_id, t.agent_variant, t.test_id
),
same_replies as (
    select run_id, agent_variant, test_id, count(*) filter (where verdicts > 1) as split_transcripts
    from (
        select run_id, agent_variant, test_id, reply_digest, count(distinct verdict) as verdicts
        from trials
        where judged
        group by run_id, agent_variant, test_id, reply_digest
    )
    group by run_id, agent_variant, test_id
),
per_test as (
    select
        run_id, agent_variant, test_id,
        count(*) as k,
        count(*) filter (where verdict = 'pass') as passes,
        count(*) filter (where verdict = 'fail') as fails,
        count(*) filter (where verdict = 'inconclusive') as inconclusive,
        count(distinct verdict) filter (where judged) as distinct_verdicts,
        count(distinct reply_digest) filter (where judged) as distinct_replies
    from trials
    group by run_id, agent_variant, test_id
)
select
    p.*,
    p.passes = p.k as pass_k,
    cast(p.passes as double) / p.k as pass_rate,
    coalesce(j.rejudged, 0) as rejudged,
    coalesce(j.rejudged_differently, 0) as rejudged_differently,
    coalesce(s.split_transcripts, 0) as split_transcripts,
    case
        when coalesce(j.rejudged_differently, 0) > 0 or coalesce(s.split_transcripts, 0) > 0 then 'judge-flaky'
        when p.distinct_verdicts > 1 and p.distinct_replies > 1 then 'agent-flaky'
        else 'stable'
    end as flake_class
from per_test as p
left join rejudged as j using (run_id, agent_variant, test_id)
left join same_replies as s using (run_id, agent_variant, test_id)
