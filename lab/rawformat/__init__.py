"""The raw-format codec and the names shared by the lab and the generator.

`codec` reads and writes one run file (data/README.md); `names` holds the vocabulary every
reader of raw data uses (a setting's name, a rate's key, a figure's slug); `errors` holds
`RawFileError` (also `codec.RawFileError`). This package imports nothing else from `lab`,
so the generator can depend on it and on nothing more.
"""
