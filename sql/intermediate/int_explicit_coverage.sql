-- int_explicit_coverage: U and P, the distinct explicit boundaries and sides covered, median over the auditor's groupings.
-- grain: run_id, kind (plain | transformed | direct | agenteval | spec | all); runs with groupings only
-- inputs: int_explicit_mappings_by_grouping, stg_groupings, stg_tests
-- Per grouping, U = count(distinct group_boundary) and P = count(distinct group_side)
-- (group_side names a canonical boundary and side, so it is counted alone) over the kind's
-- explicit mappings of valid tests; a grouping in which a kind has none counts 0 for it. u and p
-- are medians over the run's groupings; u_by_grouping / p_by_grouping list the per-grouping
-- values by grouping_no. u_extra / p_extra = median over groupings of the count over all kinds
-- minus the count over every other kind: what only this kind's tests cover (paper Table 2's
-- transformed-test rows); for 'all' they equal u / p.
with groupings as (
    select distinct run_id, grouping_no
    from stg_groupings
),
kinds as (  -- every kind of the tests of a run with groupings, and 'all'
    select distinct g.run_id, t.kind
    from (select distinct run_id from groupings) as g
    join stg_tests as t on t.run_id = g.run_id
    union
    select distinct run_id, 'all' from groupings
),
mappings as (  -- only distinct values are counted: one row per grouping, kind, boundary and side
    select distinct run_id, grouping_no, kind, group_boundary, group_side
    from int_explicit_mappings_by_grouping
),
per_grouping as (
    select
        g.run_id,
        k.kind,
        g.grouping_no,
        count(distinct e.group_boundary) filter (where k.kind = 'all' or e.kind = k.kind) as boundaries,
        count(distinct e.group_boundary)
            - count(distinct e.group_boundary) filter (where k.kind <> 'all' and e.kind <> k.kind)
            as boundaries_extra,
        count(distinct e.group_side) filter (where k.kind = 'all' or e.kind = k.kind) as sides,
        count(distinct e.group_side)
            - count(distinct e.group_side) filter (where k.kind <> 'all' and e.kind <> k.kind) as sides_extra
    from groupings as g
    join kinds as k on k.run_id = g.run_id
    left join mappings as e on e.run_id = g.run_id and e.grouping_no = g.grouping_no
    group by g.run_id, k.kind, g.grouping_no
)
select
    run_id,
    kind,
    count(*) as groupings,
    cast(median(boundaries) as double) as u,
    cast(median(boundaries_extra) as double) as u_extra,
    list(boundaries order by grouping_no) as u_by_grouping,
    cast(median(sides) as double) as p,
    cast(median(sides_extra) as double) as p_extra,
    list(sides order by grouping_no) as p_by_grouping
from per_grouping
group by run_id, kind
