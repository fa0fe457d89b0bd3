-- stg_audit_labels: the auditor's validity label of each test (evaluation only), latest version.
-- is_valid counts explicit and valid tests (V); is_explicit counts explicit ones (V_E).
-- grain: run_id, test_id
-- source: audit_labels
select
    * exclude (_part, _row),
    validity in ('explicit', 'valid') as is_valid,
    validity = 'explicit' as is_explicit,
    len(mappings) as n_mappings
from audit_labels
qualify row_number() over (partition by run_id, test_id order by (_part, _row) desc) = 1
