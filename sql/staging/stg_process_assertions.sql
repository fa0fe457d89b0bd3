-- stg_process_assertions: the process checks mapped from the run's statements (stage
-- process-checks): one row per typed assertion over the tool trace, with the statement it
-- checks (the clause a broken check names) and the tools seen in discovery it was mapped from.
-- grain: run_id, statement_id, assertion_index
-- source: process_assertions
select run_id, statement_id, statement,
    row_number() over (partition by run_id, statement_id order by (_part, _row)) - 1 as assertion_index,
    assertion.kind as kind, assertion.tools as tools, assertion.gates as gates, assertion."values" as "values",
    assertion.description as description, assertion, tools_seen, produced_by, prompt_id, prompt_version
from process_assertions
qualify _part = max(_part) over (partition by run_id)
