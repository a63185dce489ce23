"""The Part B metrics results.json publishes per cell (the median of its rounds) and not per
round: lab.rawformat's list (CELL_ONLY_METRICS) and the one the generator adds from a run's
`core_watch`, the service's CPU per answer (issue 33: what the simulator fits its wake cost
on). The build leaves them out of a cell's rounds and the report expects them missing there.
Imported by generator/arithmetic/stats.py and generator/report/checks.py; no command.
"""

from lab.rawformat.names import CELL_ONLY_METRICS

SERVICE_CPU = "service_cpu_us_per_answer"
CELL_ONLY = (*CELL_ONLY_METRICS, SERVICE_CPU)
