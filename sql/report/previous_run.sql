-- previous_run: the latest run before the given one with the same flow and target (the run a
-- report or a nightly summary compares with).
-- grain: at most one row
-- inputs: stg_runs
-- params: run_id
-- NULL target or flow never match. Runs that started at the same instant are not "before".
select p.run_id, p.started_at, p.status
from stg_runs as r
join stg_runs as p
  on p.flow = r.flow and p.target = r.target and p.started_at < r.started_at and p.run_id <> r.run_id
where r.run_id = $run_id
order by p.started_at desc
limit 1
