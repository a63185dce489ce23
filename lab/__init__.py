"""The lab: the shop data and the model, the service and its micro-batcher, the load
generators, the campaign runner and the parts of the lesson. Every command runs as
`python -m lab COMMAND` (lab/cli.py); the folder map is in README.md ("The lab")."""
