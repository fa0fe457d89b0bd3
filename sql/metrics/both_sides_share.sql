-- both_sides_share: (P - U) / U, the share of the explicit boundaries covered that are covered on both sides.
-- grain: one row per run_id and kind (plain | transformed | direct | agenteval | spec | all)
-- inputs: int_explicit_coverage
-- params: run_id
-- U = distinct explicit boundaries covered and P = distinct explicit sides covered (medians over
-- the auditor's groupings, as distinct_boundaries.sql and distinct_sides.sql report them). A
-- boundary has two sides, so P - U counts the boundaries whose tests cover both: the paper's
-- first item of future work (under a quarter of its boundaries were covered on both sides).
-- Null when no boundary is covered (U = 0).
select
    run_id,
    kind,
    u,
    p,
    case when u > 0 then (p - u) / u end as both_sides_share
from int_explicit_coverage
where ($run_id is null or run_id = $run_id)
order by run_id, kind = 'all', kind
