-- int_keyed_test_verdicts: int_test_verdicts with the key two runs' verdicts are compared on.
-- grain: run_id, test_id, agent_variant (as int_test_verdicts)
-- inputs: int_test_verdicts, stg_runs
-- variant_key is '(run target)' for executions on the variant the run was started against (its
-- runs.agent_variant: 'original', or the fault of a run-suite on a faulty target), so a suite run
-- on the original and one on a fault compare test by test; other variants (an evaluation's faults)
-- keep their name. Shared by verdict_changes.sql (same test ids) and paired_verdict_changes.sql.
select
    v.*,
    case when v.agent_variant = coalesce(r.agent_variant, 'original') then '(run target)'
         else v.agent_variant end as variant_key
from int_test_verdicts as v
left join stg_runs as r on r.run_id = v.run_id
