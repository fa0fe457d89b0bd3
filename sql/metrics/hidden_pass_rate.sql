-- hidden_pass_rate: TDAD's HPR, the share of judged executions of hidden tests that pass.
-- grain: one row per run_id and agent_variant (runs with executions of tests whose visibility is 'hidden')
-- inputs: int_pass_rates_by_visibility
-- params: run_id
-- Over executions that have a verdict (inconclusive counts as not passing). With one execution
-- per test this is the share of hidden tests that pass; with repeats, every repeat counts
-- once (see pass_k for "all repeats pass"). Hidden tests never drive prompt compilation (TDAD).
select run_id, agent_variant, tests, executions, passed, pass_rate as hidden_pass_rate
from int_pass_rates_by_visibility
where visibility = 'hidden' and ($run_id is null or run_id = $run_id)
order by run_id, agent_variant <> 'original', agent_variant
