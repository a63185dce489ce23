"""Cross-check S against a real peer: our closed-loop client versus `wrk`, side by side.

    python -m lab crosscheck [--cpu 1] [--runs 3] [--seconds 8]

The real service (batcher none) is pinned to one core; each client is pinned to the same
core, as in the campaign. Each measurement gets a fresh service and a quiet check first;
the two clients alternate (ours first in even runs, wrk first in odd runs). Both use 16
kept-alive connections and real customer ids from the request list: ours through
`python -m lab saturate` (1 s warm-up, then `--seconds` counted), wrk as
`wrk -t1 -c16 -d<seconds>s` with a Lua script cycling through pre-built `POST /predict`
requests, after a 1 s wrk warm-up on the same service.

A quiet check before a run cannot see a process that starts during it, so every
measurement also records how much of the core went to *other* processes while it ran (the
core's busy time minus the service's and the client's CPU time). A measurement where others
took more than DISTURBED_SHARE of the core is kept in the file, marked disturbed, and
repeated (at most MAX_ATTEMPTS times); medians use the undisturbed ones.

Then our open-loop client's own CPU cost per request is measured at a low rate (0.5 × S)
and a high rate (2.5 × S) with batcher none, and at 2.5 × S with B=32 W=0 (where the
service keeps up, so the client handles the most answers per second).

Writes data/bench/saturation_crosscheck.json and prints a table.
"""

import argparse
import datetime
import re
import statistics
import subprocess
import tempfile
from pathlib import Path

from lab.machine.core_watch import CoreWatch
from lab.machine.fingerprint import fingerprint, git_commit
from lab.machine.processes import pin_command, python, single_thread_env
from lab.machine.quiet import quiet_check
from lab.model import artifacts
from lab.paths import DATA, REPO
from lab.rawformat import codec
from lab.rawformat.names import rate_key
from lab.service.process import ServiceProcess
from lab.servicespec import NONE, ServiceSpec, Setting

OUT = DATA / "bench" / "saturation_crosscheck.json"
WRK = "wrk"
CONNECTIONS = 16
WRK_WARMUP_S = 1
LUA_IDS = 10_000  # real ids the wrk script cycles through (as our client does)
DISTURBED_SHARE = 0.05  # others took more than 5% of the core: measure again
MAX_ATTEMPTS = 4
OPEN_LOOP_SEED = 20_240_601
OPEN_LOOP_STATS = ("requests", "answered", "arrival_rate", "client_cpu_s",
                   "client_cpu_us_per_request", "dispatch_lag_us_p50", "dispatch_lag_us_p99",
                   "drain_s_used", "wall_s")  # fmt: skip
OPEN_LOOP_POINTS = (
    ("low", 0.5, {"batcher": "none"}),
    ("high", 2.5, {"batcher": "none"}),
    ("high, B=32 W=0", 2.5, {"batcher": "queue", "max_batch": 32, "max_wait_ms": 0.0}),
)


def wrk_script(customer_ids) -> str:
    """A wrk Lua script that pre-builds one request per id and cycles through them."""
    ids = ",".join(str(int(customer_id)) for customer_id in customer_ids)
    return f"""-- written by lab/load/crosscheck.py
local ids = {{{ids}}}
local requests = {{}}
local index = 0
init = function(args)
  local headers = {{["Content-Type"] = "application/json"}}
  for i, id in ipairs(ids) do
    requests[i] = wrk.format("POST", "/predict", headers, '{{"customer_id": ' .. id .. '}}')
  end
end
request = function()
  index = index % #requests + 1
  return requests[index]
end
"""


def parse_wrk(output: str) -> dict:
    """Requests, seconds, requests/s and non-2xx count from wrk's report."""
    done = re.search(r"(\d+) requests in ([\d.]+)(ms|s|m)", output)
    per_second = re.search(r"Requests/sec:\s+([\d.]+)", output)
    if not done or not per_second:
        raise RuntimeError(f"cannot read wrk's report:\n{output}")
    scale = {"ms": 1e-3, "s": 1.0, "m": 60.0}[done.group(3)]
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    errors = re.search(r"Socket errors:(.*)", output)
    return {
        "requests": int(done.group(1)),
        "seconds": float(done.group(2)) * scale,
        "throughput": float(per_second.group(1)),
        "non_2xx": int(non_2xx.group(1)) if non_2xx else 0,
        "socket_errors": errors.group(1).strip() if errors else "",
    }


# ------------------------------------------------------------------ one measurement each


def run_pinned(cpu: int, command: list[str], timeout_s: float) -> str:
    """Run `command` pinned to `cpu` with one thread; its stdout. Raises on failure."""
    done = subprocess.run(
        pin_command(cpu, command),
        cwd=REPO,
        env=single_thread_env(),
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:4])} … exited {done.returncode}:\n{done.stderr}")
    return done.stdout


def lab_command(name: str, options: dict) -> list[str]:
    """`python -m lab NAME --option value …`, every value as a string."""
    pairs = [text for option, value in options.items() for text in (option, str(value))]
    return [python(), "-m", "lab", name, *pairs]


def measure_ours(cpu: int, service: ServiceProcess, seconds: float, folder: Path) -> dict:
    out = folder / "ours.run.zip"
    command = lab_command("saturate", {"--port": service.port, "--seconds": seconds,
                                       "--out": out})  # fmt: skip
    with CoreWatch(cpu, service.pid) as watch:
        run_pinned(cpu, command, timeout_s=seconds + 120)
    stats = codec.read_run(out)[0]["stats"]
    out.unlink()
    return {
        "throughput": stats["throughput"],
        "answers": stats["answers"],
        "errors": stats["errors"],
        "client_cpu_us_per_request": stats["client_cpu_us_per_request"],
        "core": watch.found,
    }


def measure_wrk(cpu: int, service: ServiceProcess, seconds: float, script: Path) -> dict:
    url = f"{service.url}/predict"
    base = [WRK, "-t1", f"-c{CONNECTIONS}", "-s", str(script)]
    run_pinned(cpu, [*base, f"-d{WRK_WARMUP_S}s", url], timeout_s=60)
    with CoreWatch(cpu, service.pid) as watch:
        output = run_pinned(cpu, [*base, f"-d{seconds:g}s", url], timeout_s=seconds + 60)
    found = parse_wrk(output)
    found["client_cpu_us_per_request"] = round(
        watch.found["client_cpu_s"] * 1e6 / max(found["requests"], 1), 3
    )
    return {**found, "core": watch.found}


def measure_saturation(cpu, client, seconds, folder, script) -> dict:
    with ServiceProcess(ServiceSpec(NONE), cpu=cpu) as service:
        quiet = quiet_check(cpu)
        if client == "ours":
            found = measure_ours(cpu, service, seconds, folder)
        else:
            found = measure_wrk(cpu, service, seconds, script)
    disturbed = found["core"]["others_share"] > DISTURBED_SHARE
    return {"idle_share_before": quiet["idle_share"], "quiet": quiet["quiet"],
            "disturbed": disturbed, **found}  # fmt: skip


def saturation_runs(cpu: int, runs: int, seconds: float, echo) -> list[dict]:
    """`runs` pairs, alternating which client goes first; a fresh service per measurement;
    a measurement disturbed by other processes is kept, marked, and made again."""
    measured = []
    with tempfile.TemporaryDirectory(prefix="crosscheck-") as scratch:
        folder = Path(scratch)
        script = folder / "post.lua"
        script.write_text(wrk_script(artifacts.request_ids()[:LUA_IDS]))
        for run_index in range(runs):
            order = ("ours", "wrk") if run_index % 2 == 0 else ("wrk", "ours")
            for client in order:
                for attempt in range(MAX_ATTEMPTS):
                    found = measure_saturation(cpu, client, seconds, folder, script)
                    row = {"run": run_index, "client": client, "attempt": attempt, **found}
                    measured.append(row)
                    echo(row_line(row))
                    if not row["disturbed"]:
                        break
    return measured


def measure_open_loop(cpu, arrival_rate, setting, seconds, folder) -> dict:
    out = folder / "open.run.zip"
    with ServiceProcess(ServiceSpec(Setting.from_record(setting)), cpu=cpu) as service:
        quiet = quiet_check(cpu)
        options = {"--port": service.port, "--arrival-rate": f"{arrival_rate:.3f}",
                   "--window-s": seconds, "--seed": OPEN_LOOP_SEED, "--out": out}  # fmt: skip
        with CoreWatch(cpu, service.pid) as watch:
            run_pinned(cpu, lab_command("openloop", options), timeout_s=seconds + 180)
    stats = codec.read_run(out)[0]["stats"]
    out.unlink()
    kept = {key: stats[key] for key in OPEN_LOOP_STATS}
    return {"setting": setting, "idle_share_before": quiet["idle_share"], **kept,
            "core": watch.found}  # fmt: skip


def open_loop_points(cpu: int, saturation: float, seconds: float, echo) -> list[dict]:
    points = []
    with tempfile.TemporaryDirectory(prefix="crosscheck-") as scratch:
        for label, multiple, setting in OPEN_LOOP_POINTS:
            found = measure_open_loop(cpu, multiple * saturation, setting, seconds, Path(scratch))
            found = {"label": label, "rate_multiple": multiple, **found}
            echo(point_line(found))
            points.append(found)
    return points


# ------------------------------------------------------------------ summary and table


def summarise(runs: list[dict]) -> dict:
    clean = [row for row in runs if not row["disturbed"]]
    summary = {}
    for client in ("ours", "wrk"):
        mine = [row["throughput"] for row in clean if row["client"] == client]
        if not mine:  # every attempt disturbed: say so, and fall back to all of them
            mine = [row["throughput"] for row in runs if row["client"] == client]
            summary[f"{client}_all_disturbed"] = True
        summary[f"{client}_throughputs"] = mine
        summary[f"{client}_median"] = statistics.median(mine)
    summary["ratio_ours_to_wrk"] = round(summary["ours_median"] / summary["wrk_median"], 4)
    summary["disturbed_runs_left_out"] = len(runs) - len(clean)
    return summary


def row_line(row: dict) -> str:
    return (f"{row['run']:>3}  {row['client']:>4}  {row['attempt']:>7}  "
            f"{row['throughput']:9.1f}  {row['client_cpu_us_per_request']:10.1f}  "
            f"{row['idle_share_before']:9.0%}  {row['core']['others_share']:10.1%}"
            f"{'  disturbed' if row['disturbed'] else ''}")  # fmt: skip


def point_line(point: dict) -> str:
    return (f"open loop {point['label']:>15} ({rate_key(point['rate_multiple'])} × S = "
            f"{point['arrival_rate']:.0f}/s): client {point['client_cpu_us_per_request']:.1f} "
            f"µs/request, others {point['core']['others_share']:.1%} of the core")  # fmt: skip


HEADER = "run  who  attempt  answers/s  client µs  idle before  others during"


def table(result: dict) -> str:
    summary = result["summary"]
    lines = [HEADER, *(row_line(row) for row in result["saturation_runs"])]
    lines.append(f"median  ours {summary['ours_median']:.1f}/s  wrk {summary['wrk_median']:.1f}/s"
                 f"  ratio ours/wrk {summary['ratio_ours_to_wrk']:.3f}")  # fmt: skip
    lines += [point_line(point) for point in result["open_loop_client_cost"]]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cpu", type=int, default=1, help="the core for service and client")
    parser.add_argument("--runs", type=int, default=3, help="measurements per client")
    parser.add_argument("--seconds", type=float, default=8.0, help="counted seconds per run")
    parser.add_argument("--out", type=Path, default=OUT)


def main(args: argparse.Namespace) -> int:
    def echo(line: str) -> None:
        print(line, flush=True)

    started = datetime.datetime.now(datetime.UTC)
    echo(HEADER)
    runs = saturation_runs(args.cpu, args.runs, args.seconds, echo)
    summary = summarise(runs)
    points = open_loop_points(args.cpu, summary["ours_median"], args.seconds, echo)
    wrk_version = subprocess.run([WRK, "--version"], capture_output=True, text=True).stdout
    result = {
        "what": "S by our closed-loop client versus wrk, same service, same core; and the "
        "open-loop client's own CPU per request",
        "date": started.isoformat(timespec="seconds"),
        "cpu": args.cpu,
        "seconds": args.seconds,
        "connections": CONNECTIONS,
        "disturbed_share": DISTURBED_SHARE,
        "wrk_version": wrk_version.splitlines()[0],
        "fingerprint": fingerprint(),
        "git_commit": git_commit(),
        "summary": summary,
        "saturation_runs": runs,
        "open_loop_client_cost": points,
    }
    codec.write_json(args.out, result)
    print(table(result))
    print(f"wrote {args.out}")
    return 0
