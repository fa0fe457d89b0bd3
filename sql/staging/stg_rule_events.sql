-- stg_rule_events: the reference agent's evaluation-only side log, one row per rule evaluation
-- as logged. Not deduplicated: a rule may legitimately be evaluated more than once in a turn.
-- grain: one logged evaluation (run_id, session_id, turn, rule_id are not unique)
-- source: rule_events
select * exclude (_part, _row)
from rule_events
