"""Pilot (issue 33): what a request's TCP exchange costs a client on the shared core, in C.

    setsid -w taskset -c 0 .venv/bin/python data/bench/pilots/2026-12-02-wrk-floor/floor.py

Three rounds, interleaved: for none (16 connections) and B=32 W=0 (128 connections), a fresh
service pinned to core 1 driven for 8 s by `wrk` (Debian's, C, epoll, one thread) pinned to
the same core, and, on a fresh service, by the lab's own closed loop (Python). For each: the
client's user and kernel CPU per answer (getrusage of the child; the kernel splits user from
kernel by 4 ms ticks, CONFIG_TICK_CPU_ACCOUNTING, so the split is a sample and the sum exact).
Writes floor.json beside this file. Not read by the generator.
"""

import json
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from lab.bench.sidebyside import Machinery  # noqa: E402
from lab.machine.fingerprint import fingerprint  # noqa: E402
from lab.servicespec import NONE, Setting  # noqa: E402

CPU, SECONDS, ROUNDS = 1, 8, 3
SETTINGS = (("none", NONE, 16), ("B=32 W=0", Setting("queue", 32, 0.0), 128))
LUA = Path(__file__).with_name("predict.lua")
IDS = Path("/tmp/wrk-floor-ids.txt")  # the first 5,000 ids of the lab's request list


def wrk(port: int, connections: int) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        ["taskset", "-c", str(CPU), "wrk", "-t1", f"-c{connections}", f"-d{SECONDS}s",
         "-s", str(LUA), f"http://127.0.0.1:{port}/predict", "--", str(IDS)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    answers = int(re.search(r"(\d+) requests in", done.stdout).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", done.stdout)
    user, kernel = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    return {"answers": answers, "non_2xx": int(bad.group(1)) if bad else 0,
            "answers_per_s": answers / SECONDS,
            "user_us_per_answer": user * 1e6 / answers,
            "kernel_us_per_answer": kernel * 1e6 / answers,
            "cpu_us_per_answer": (user + kernel) * 1e6 / answers}  # fmt: skip


def main() -> None:
    from lab.model import artifacts

    IDS.write_text("".join(f"{int(i)}\n" for i in artifacts.request_ids()[:5000]))
    runs = []
    with Machinery("new") as new:
        for round_ in range(ROUNDS):
            for name, setting, connections in SETTINGS:
                for client in ("wrk", "lab closed loop") if round_ % 2 == 0 else (
                        "lab closed loop", "wrk"):  # fmt: skip
                    with new.service(setting, CPU) as service:
                        if client == "wrk":
                            found = wrk(service.port, connections)
                        else:
                            stats = new.closedloop(service.port, SECONDS, connections, CPU)
                            cpu_us = stats["client_cpu_us_per_request"]
                            found = {"answers_per_s": stats["throughput"],
                                     "cpu_us_per_answer": cpu_us}  # fmt: skip
                    found.update(round=round_, setting=name, client=client,
                                 connections=connections, at=time.time())  # fmt: skip
                    print(found, flush=True)
                    runs.append(found)
        commit = new.git_commit
    out = Path(__file__).with_name("floor.json")
    found = {"what": __doc__.splitlines()[0], "commit": commit, "fingerprint": fingerprint(),
             "runs": runs}  # fmt: skip
    out.write_text(json.dumps(found, indent=1) + "\n")


if __name__ == "__main__":
    main()
