"""The lab: the shop data, the model, the service and its micro-batcher, the load
generators and the campaign runner. Every command runs as `python -m lab COMMAND`."""
