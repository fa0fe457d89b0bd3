-- stg_suite_blessings: every blessing of a suite run under a name (adat suite bless / import);
-- a name's latest blessing is the suite the nightly of that name runs.
-- grain: run_id, name, blessed_at
-- source: suite_blessings
select * exclude (_part, _row)
from suite_blessings
