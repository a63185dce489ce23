"""The build's arithmetic, done once: statistics of every run, the results dict (results.json)
and its sections, the named figures, the guess verdicts, the interval rule, the slow-run rule's
choice of attempts, the machinery's benchmarks and the comparison of campaigns. The report
(generator/report/) never imports it."""
