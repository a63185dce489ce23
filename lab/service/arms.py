"""The two arms of a switchback service (lab/service/switchback.py): their names and routes,
shared by the service and the open-loop client (lab/load/openloop.py) without bringing
FastAPI into the client. Nothing to run on its own.

Arm index 0 is A and 1 is B, as a switchback run's `arm` column stores them (data/README.md).
"""

ARMS = ("a", "b")


def arm_path(arm: str, route: str = "predict") -> str:
    """The path of one arm's route: arm_path("a") -> "/arm/a/predict"."""
    return f"/arm/{arm}/{route}"
