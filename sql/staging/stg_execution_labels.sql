-- stg_execution_labels: the auditor's TP/FP/FN/TN/INC label of each execution of a valid
-- boundary test (evaluation only), latest version.
-- grain: run_id, execution_id
-- source: execution_labels
select * exclude (_part, _row)
from execution_labels
qualify row_number() over (partition by run_id, execution_id order by (_part, _row) desc) = 1
