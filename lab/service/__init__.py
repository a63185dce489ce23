"""The service: the FastAPI app and its micro-batcher, the batch route, the Server-Timing
header, `python -m lab serve`, and starting it as a real process (exec'd or pre-loaded)."""
