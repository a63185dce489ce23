"""The two arms of a switchback service (lab/service/switchback.py): their names and routes,
shared by the service and the open-loop client (lab/load/openloop.py) without bringing
FastAPI into the client. Nothing to run on its own.

Arm index 0 is A and 1 is B, as a switchback run's `arm` column stores them (data/README.md).
"""

ARMS = ("a", "b")
# How arm B's added work spins (lab/service/switchback.py `spin`), recorded by the switchback
# bench in its file; here so the bench can name it without importing FastAPI.
SPIN = "to the clock, after the row lookup"


def arm_path(arm: str, route: str = "predict") -> str:
    """The path of one arm's route: arm_path("a") -> "/arm/a/predict"."""
    return f"/arm/{arm}/{route}"


def route_of_arms(swap_routes: bool) -> dict[str, str]:
    """{arm: the route serving it}: a -> a and b -> b, or crossed when the routes are swapped
    (lab/service/switchback.py's `swap_routes`)."""
    return dict(zip(ARMS, tuple(reversed(ARMS)) if swap_routes else ARMS, strict=True))
