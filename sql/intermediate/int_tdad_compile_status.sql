-- int_tdad_compile_status: whether a spec run's compilation converged (TDAD's compile success).
-- grain: run_id
-- inputs: int_tdad_compile_vpr
-- Converged: the prompt in effect after the last iteration passes every visible test (VPR 100 %),
-- which the loop reaches within its budget or not at all. compile_status is
--   converged     -- it did;
--   not_converged -- it did not (budget spent, or no candidate fixed anything): HPR, MS and SURS
--                    of such a run describe a prompt that never compiled, and say so;
--   not_compiled  -- budget 0: the agent under test does not read the prompt (an external target),
--                    so only the start run happened.
select
    run_id,
    max(iteration) as iterations,
    max(budget) as budget,
    arg_max(visible_passed, iteration) as final_visible_passed,
    arg_max(visible_tests, iteration) as final_visible_tests,
    cast(arg_max(visible_passed, iteration) as double) / arg_max(visible_tests, iteration) as final_vpr,
    case when max(budget) = 0 then 'not_compiled'
         when arg_max(visible_passed, iteration) = arg_max(visible_tests, iteration) then 'converged'
         else 'not_converged' end as compile_status,
    max(budget) <> 0 and arg_max(visible_passed, iteration) = arg_max(visible_tests, iteration) as compile_converged
from int_tdad_compile_vpr
group by run_id
