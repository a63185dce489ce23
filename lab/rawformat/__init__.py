"""The raw-format codec and what the lab and the generator share about raw data.

`codec` reads and writes one run file (data/README.md); `names` holds the vocabulary every
reader of raw data uses (a setting's name, a rate's key, a figure's slug); `kinds` is a run
kind's one home (its name, raw fields and columns, published or not, judged by the slow-run
rule or not); `slowrun` is the slow-run rule's decision from an attempt's probes, the lab's
and the build's (the report keeps its own); `errors` holds `RawFileError` (also
`codec.RawFileError`). This package imports nothing else from `lab`,
so the generator can depend on it and on nothing more.
"""
