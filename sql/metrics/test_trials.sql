-- test_trials: pass rate, pass^k and flake class of every test run more than once on an agent
-- variant in a run (`run-suite --repeat k`).
-- grain: one row per run_id, agent_variant and test_id, for tests with at least two trials there
-- inputs: int_test_trials
-- params: run_id
-- pass_k: all k trials passed; pass_rate = passes / k; flake_class is stable, agent-flaky or
-- judge-flaky (int_test_trials.sql says how each is decided; docs/trials.md why).
select run_id, agent_variant, test_id, k, passes, fails, inconclusive, pass_rate, pass_k, flake_class
from int_test_trials
where k >= 2 and ($run_id is null or run_id = $run_id)
order by run_id, agent_variant <> 'original', agent_variant, test_id
