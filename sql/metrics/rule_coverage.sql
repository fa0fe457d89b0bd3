-- rule_coverage: how many of the reference agent's rules the extracted statements are about.
-- grain: one row per run_id (runs with statements)
-- inputs: stg_statements, stg_traces, stg_trace_turns, stg_rule_events
-- params: run_id
-- A statement matches a rule when the side log (stg_rule_events) of its supporting discovery
-- session holds an evaluation of that rule at the user turn its supporting reply answered.
-- statements.supporting_turn indexes traces.turns (user and agent messages, 0-based); a rule
-- event's turn is the 0-based number of the user message that triggered it (the agent's
-- turn counter, advanced once per invoke). So the supporting reply at turn index i answers
-- user turn (user messages at index <= i) - 1; for discovery's alternating layout (user at
-- even, agent at odd indexes, stages/discovery.py) that is (i - 1) / 2. Only agent replies of
-- discovery traces count; events join on run_id and session_id (sessions with an empty id,
-- i.e. a failed reset, never match). The *_grounded columns keep grounded statements only.
-- A reply's turn usually evaluates several gate rules on the allowed side (identity, scope,
-- order exists) besides the rule the reply is about, so distinct_rules is generous; the
-- denied_* columns keep only rules evaluated on the denied side at that turn - the refusal
-- the reply states in words - and are the stricter count.
-- Evaluation only: the side log exists for the reference agent alone.
with reply_turns as (
    select
        tt.run_id,
        tt.trace_id,
        tt.turn_index,
        tt.role,
        tr.session_id,
        sum(case when tt.role = 'user' then 1 else 0 end) over (
            partition by tt.run_id, tt.trace_id order by tt.turn_index
            rows between unbounded preceding and current row) - 1 as user_turn
    from stg_trace_turns as tt
    join stg_traces as tr on tr.run_id = tt.run_id and tr.trace_id = tt.trace_id
    where tr.kind = 'discovery' and tr.session_id <> '' and ($run_id is null or tt.run_id = $run_id)
),
matches as (
    select distinct s.run_id, s.statement_id, ev.rule_id, ev.side
    from stg_statements as s
    join reply_turns as r
        on r.run_id = s.run_id and r.trace_id = s.supporting_trace_id and r.turn_index = s.supporting_turn
    join stg_rule_events as ev
        on ev.run_id = r.run_id and ev.session_id = r.session_id and ev.turn = r.user_turn
    where r.role = 'agent'
)
select
    s.run_id,
    count(distinct s.statement_id) as statements,
    count(distinct m.statement_id) as matched_statements,
    count(distinct m.rule_id) as distinct_rules,
    count(distinct m.statement_id) filter (where m.side = 'denied') as denied_statements,
    count(distinct m.rule_id) filter (where m.side = 'denied') as distinct_denied_rules,
    count(distinct s.statement_id) filter (where s.grounded) as grounded_statements,
    count(distinct m.statement_id) filter (where s.grounded) as matched_grounded_statements,
    count(distinct m.rule_id) filter (where s.grounded) as distinct_rules_grounded,
    coalesce(list(distinct m.rule_id order by m.rule_id) filter (where m.rule_id is not null), []) as rule_ids
from stg_statements as s
left join matches as m on m.run_id = s.run_id and m.statement_id = s.statement_id
where ($run_id is null or s.run_id = $run_id)
group by s.run_id
order by s.run_id
