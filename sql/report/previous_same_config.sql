-- previous_same_config: the latest run before the given one with the same flow and the same run
-- config apart from its run id and data directory (the night a nightly summary compares with).
-- grain: at most one row
-- inputs: stg_runs
-- params: run_id
-- config_json is written with sorted keys; json_merge_patch with nulls drops the two fields.
with keyed as (
    select run_id, flow, started_at, status,
           json_merge_patch(config_json, '{"run_id": null, "data_dir": null}') as config
    from stg_runs
)
select p.run_id, p.started_at, p.status
from keyed as r
join keyed as p
  on p.flow = r.flow and p.config = r.config and p.started_at < r.started_at and p.run_id <> r.run_id
where r.run_id = $run_id
order by p.started_at desc
limit 1
