"""Benchmarks of the lab's own machinery, not tests: two versions (a past commit and this
checkout) side by side on the same core and arrivals (`python -m lab.bench.batcher`), and a
trace of where an answer's time goes (`python -m lab.bench.handler_trace`)."""
