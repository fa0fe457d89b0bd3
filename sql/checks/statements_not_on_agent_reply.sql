-- statements_not_on_agent_reply: statements whose supporting turn is not an agent reply of
-- their supporting trace.
-- grain: one row per violating statement (run_id, statement_id)
-- inputs: stg_statements, stg_traces, stg_trace_turns
-- params: run_id
-- supporting_turn indexes the trace's turns (0-based) and must point at an agent message;
-- rule_coverage and the auditor locate the reply this way.
select s.run_id, s.statement_id, s.supporting_trace_id, s.supporting_turn,
       case when tr.trace_id is null then 'supporting trace not found'
            when tt.turn_index is null then 'supporting turn out of range'
            else 'supporting turn is a ' || tt.role || ' message' end as problem
from stg_statements as s
left join stg_traces as tr on tr.run_id = s.run_id and tr.trace_id = s.supporting_trace_id
left join stg_trace_turns as tt
    on tt.run_id = s.run_id and tt.trace_id = s.supporting_trace_id and tt.turn_index = s.supporting_turn
where ($run_id is null or s.run_id = $run_id)
  and (tt.role is null or tt.role <> 'agent')
order by s.run_id, s.statement_id
