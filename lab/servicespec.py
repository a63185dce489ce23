"""What one service serves, in one frozen form from the design to the app.

    Setting("queue", 32, 2.0)                         one batching setting (the design's unit)
    ServiceSpec(Setting("queue", 32, 2.0))            a plain service with that setting
    ServiceSpec(NONE, arm_b=QUEUE_B1)                 a two-armed (switchback) service

A `ServiceSpec` travels to a service process in one of two forms and comes back whole:
`arguments()` / `from_arguments()` for `python -m lab serve` (its flags are defined here,
`add_arguments`), `to_json()` / `from_json()` for the pre-loaded launcher's pipe. The fields
are listed once, here; tests/test_servicespec.py checks both round trips.

The raw files keep their own record of a setting (`Setting.as_dict()`, with its name): this
module does not change it. Imports only `lab.rawformat`.
"""

from dataclasses import dataclass

from lab.rawformat.names import setting_name

DEFAULT_MAX_RECORDS = 10_000  # the most records one /predict_batch request may carry


@dataclass(frozen=True, order=True)
class Setting:
    """One batching setting. batcher 'none' has no cap or wait; 'queue' has both."""

    batcher: str
    max_batch: int = 0
    max_wait_ms: float = 0.0

    @property
    def name(self) -> str:
        return setting_name(self.batcher, self.max_batch, self.max_wait_ms)

    def as_dict(self) -> dict:
        """The setting as raw files record it (schedule.json, a run's meta), with its name."""
        return {
            "batcher": self.batcher,
            "max_batch": self.max_batch,
            "max_wait_ms": self.max_wait_ms,
            "name": self.name,
        }

    def record(self) -> dict:
        """{batcher, max_batch, max_wait_ms} with the types a service reports in /health."""
        return {
            "batcher": self.batcher,
            "max_batch": int(self.max_batch),
            "max_wait_ms": float(self.max_wait_ms),
        }

    @classmethod
    def from_record(cls, record: dict) -> "Setting":
        """From a setting record as raw files, benchmarks and tests write it: `max_batch` and
        `max_wait_ms` may be missing or None (no batcher has neither); `name` is ignored."""
        return cls(
            record["batcher"],
            int(record.get("max_batch") or 0),
            float(record.get("max_wait_ms") or 0.0),
        )


NONE = Setting("none")
QUEUE_B1 = Setting("queue", 1, 0.0)


@dataclass(frozen=True)
class ServiceSpec:
    """One service process's setting: `setting` (arm A, when `arm_b` is given, of a two-armed
    switchback service, lab/service/switchback.py), `added_work_us_b` (the calibration check
    only: arm B's handler spins that many µs per request), `max_records` (the batch
    route's limit) and `swap_routes` (two arms: route a serves arm B and route b arm A, a
    switchback run's counterbalancing). Its settings are checked against the design when the
    app is built, not here, so that a service refuses a bad setting the same way whichever
    form it came in; added work or swapped routes without an arm B are refused here, as no
    form could carry them."""

    setting: Setting = NONE
    arm_b: Setting | None = None
    added_work_us_b: float = 0.0
    max_records: int = DEFAULT_MAX_RECORDS
    swap_routes: bool = False

    def __post_init__(self):
        if self.added_work_us_b and self.arm_b is None:
            raise ValueError("--added-work-us-b needs two arms: give --arm-b-batcher")
        if self.swap_routes and self.arm_b is None:
            raise ValueError("--swap-routes needs two arms: give --arm-b-batcher")

    def arguments(self) -> list[str]:
        """The flags of `python -m lab serve` that say this spec (not where to listen). The
        plain flags are the ones every past version of the lab accepts, so a past commit's
        service (lab/bench/sidebyside.py) can be started with them; the arm-B ones only when
        there is an arm B."""
        flags = [
            "--batcher", self.setting.batcher,
            "--max-batch", str(int(self.setting.max_batch)),
            "--max-wait-ms", repr(float(self.setting.max_wait_ms)),
            "--max-records", str(int(self.max_records)),
        ]  # fmt: skip
        if self.arm_b is not None:
            flags += [
                "--arm-b-batcher", self.arm_b.batcher,
                "--arm-b-max-batch", str(int(self.arm_b.max_batch)),
                "--arm-b-max-wait-ms", repr(float(self.arm_b.max_wait_ms)),
                "--added-work-us-b", repr(float(self.added_work_us_b)),
            ] + (["--swap-routes"] if self.swap_routes else [])  # fmt: skip
        return flags

    @classmethod
    def from_arguments(cls, args) -> "ServiceSpec":
        """From the namespace argparse made with `add_arguments`."""
        arm_b = None
        if args.arm_b_batcher is not None:
            arm_b = Setting(args.arm_b_batcher, args.arm_b_max_batch, args.arm_b_max_wait_ms)
        return cls(
            Setting(args.batcher, args.max_batch, args.max_wait_ms),
            arm_b=arm_b,
            added_work_us_b=args.added_work_us_b,
            max_records=args.max_records,
            swap_routes=args.swap_routes,
        )

    def to_json(self) -> dict:
        """A JSON-ready dict (the launcher's pipe)."""
        return {
            "setting": self.setting.record(),
            "arm_b": None if self.arm_b is None else self.arm_b.record(),
            "added_work_us_b": float(self.added_work_us_b),
            "max_records": int(self.max_records),
            "swap_routes": bool(self.swap_routes),
        }

    @classmethod
    def from_json(cls, found: dict) -> "ServiceSpec":
        arm_b = found["arm_b"]
        return cls(
            Setting.from_record(found["setting"]),
            arm_b=None if arm_b is None else Setting.from_record(arm_b),
            added_work_us_b=float(found["added_work_us_b"]),
            max_records=int(found["max_records"]),
            swap_routes=bool(found["swap_routes"]),
        )


def add_arguments(parser) -> None:
    """The flags `ServiceSpec.arguments()` writes, on an argparse parser."""
    parser.add_argument(
        "--batcher",
        choices=("none", "queue"),
        default="none",
        help="none: each request scores its own row; queue: through the micro-batcher",
    )
    parser.add_argument("--max-batch", type=int, default=0, help="the cap B (queue only)")
    parser.add_argument("--max-wait-ms", type=float, default=0.0, help="the wait W in ms")
    parser.add_argument(
        "--max-records",
        type=int,
        default=DEFAULT_MAX_RECORDS,
        help="the most records one /predict_batch request may carry",
    )
    parser.add_argument(
        "--arm-b-batcher",
        choices=("none", "queue"),
        default=None,
        help="serve two arms (a switchback run): arm A with the setting above, arm B with "
        "this one, at /arm/a/predict and /arm/b/predict",
    )
    parser.add_argument("--arm-b-max-batch", type=int, default=0, help="arm B's cap B")
    parser.add_argument("--arm-b-max-wait-ms", type=float, default=0.0, help="arm B's wait W")
    parser.add_argument(
        "--added-work-us-b",
        type=float,
        default=0.0,
        help="FOR THE CALIBRATION CHECK ONLY (issue 28's known-effect runs): arm B's handler "
        "spins this many µs of CPU per request; never used by the campaign's comparisons",
    )
    parser.add_argument(
        "--swap-routes",
        action="store_true",
        help="two arms: /arm/a/predict serves arm B and /arm/b/predict arm A (a switchback "
        "run counterbalances the routes' places)",
    )
