-- distinct_sides: P, distinct sides of the explicit boundaries covered, median over groupings.
-- grain: one row per run_id and kind (plain | transformed | direct | agenteval | spec | all)
-- inputs: stg_groupings, stg_audit_mappings, stg_tests
-- params: run_id
-- Only explicit mappings (explicit = true) of valid boundary tests (validity explicit|valid)
-- count. Per grouping, P = count(distinct group_side) (group_side names a canonical boundary
-- and side, so it is counted alone); a grouping in which a kind has no explicit mapping counts
-- 0 for it. p = median over the run's groupings; p_by_grouping lists them by grouping_no.
-- p_extra = median over groupings of P(all kinds) - P(every other kind): the sides only this
-- kind's tests cover (paper Table 2's transformed-test rows); for 'all' it equals p. Runs
-- without groupings have no rows.
with explicit_groups as (
    select g.run_id, g.grouping_no, t.kind, g.group_side
    from stg_groupings as g
    join stg_audit_mappings as m
        on m.run_id = g.run_id and m.test_id = g.test_id and m.boundary = g.boundary and m.side = g.side
    join stg_tests as t on t.run_id = g.run_id and t.test_id = g.test_id
    where m.explicit and m.validity in ('explicit', 'valid')
      and ($run_id is null or g.run_id = $run_id)
),
groupings as (
    select distinct run_id, grouping_no
    from stg_groupings
    where ($run_id is null or run_id = $run_id)
),
kinds as (
    select distinct t.run_id, t.kind
    from stg_tests as t
    where t.run_id in (select run_id from groupings)
    union
    select distinct run_id, 'all' from groupings
),
per_grouping as (
    select
        k.run_id,
        k.kind,
        g.grouping_no,
        count(distinct e.group_side) filter (where k.kind = 'all' or e.kind = k.kind) as p,
        count(distinct e.group_side) as p_all,
        count(distinct e.group_side) filter (where k.kind <> 'all' and e.kind <> k.kind) as p_others
    from kinds as k
    join groupings as g on g.run_id = k.run_id
    left join explicit_groups as e on e.run_id = g.run_id and e.grouping_no = g.grouping_no
    group by k.run_id, k.kind, g.grouping_no
)
select
    run_id,
    kind,
    count(*) as groupings,
    cast(median(p) as double) as p,
    cast(median(p_all - p_others) as double) as p_extra,
    list(p order by grouping_no) as p_by_grouping
from per_grouping
group by run_id, kind
order by run_id, kind = 'all', kind
