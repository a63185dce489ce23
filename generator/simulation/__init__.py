"""The simulator (site_src/explorer/simulate.py) calibrated from a campaign and checked against
its Part B cells, its runs cached between builds, and the what-ifs the limits page shows.
`python -m generator.simulation --results FILE` runs the check alone (validate.py)."""
