"""Cross-check S against a real peer: our closed-loop client versus `wrk`, side by side.

    python -m lab.crosscheck [--cpu 1] [--runs 3] [--seconds 8]

The real service (batcher none) is pinned to one core; each client is pinned to the same
core, as in the campaign. Each measurement gets a fresh service and a quiet check first;
the two clients alternate (ours first in even runs, wrk first in odd runs). Both use 16
kept-alive connections and real customer ids from the request list: ours through
`python -m lab saturate` (1 s warm-up, then `--seconds` counted), wrk as
`wrk -t1 -c16 -d<seconds>s` with a Lua script cycling through pre-built `POST /predict`
requests, after a 1 s wrk warm-up on the same service.

Then our open-loop client's own CPU cost per request is measured at a low rate (0.5 × S)
and a high rate (2.5 × S) with batcher none, and at 2.5 × S with B=32 W=0 (where the
service keeps up, so the client handles the most answers per second).

Writes data/bench/saturation_crosscheck.json and prints a table.
"""

import argparse
import datetime
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from lab import artifacts, machine, rawio
from lab.paths import DATA, REPO
from lab.serviceproc import ServiceProcess

OUT = DATA / "bench" / "saturation_crosscheck.json"
WRK = "wrk"
CONNECTIONS = 16
WRK_WARMUP_S = 1
LUA_IDS = 10_000  # real ids the wrk script cycles through (as our client does)
OPEN_LOOP_SEED = 20_240_601
OPEN_LOOP_STATS = (
    "requests",
    "answered",
    "arrival_rate",
    "client_cpu_s",
    "client_cpu_us_per_request",
    "dispatch_lag_us_p50",
    "dispatch_lag_us_p99",
    "drain_s_used",
    "wall_s",
)
OPEN_LOOP_POINTS = (
    ("low", 0.5, {"batcher": "none"}),
    ("high", 2.5, {"batcher": "none"}),
    ("high, B=32 W=0", 2.5, {"batcher": "queue", "max_batch": 32, "max_wait_ms": 0.0}),
)


def wrk_script(customer_ids) -> str:
    """A wrk Lua script that pre-builds one request per id and cycles through them."""
    ids = ",".join(str(int(customer_id)) for customer_id in customer_ids)
    return f"""-- written by lab/crosscheck.py
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


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_pinned(cpu: int, command: list[str], timeout_s: float) -> tuple[str, float]:
    """Run `command` pinned to `cpu`; (stdout, its CPU seconds). Raises on failure."""
    before = children_cpu_s()
    done = subprocess.run(
        machine.pin_command(cpu, command),
        cwd=REPO,
        env=machine.single_thread_env(),
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:4])} … exited {done.returncode}:\n{done.stderr}")
    return done.stdout, children_cpu_s() - before


def lab_command(name: str, options: dict) -> list[str]:
    """`python -m lab NAME --option value …`, every value as a string."""
    pairs = [text for option, value in options.items() for text in (option, str(value))]
    return [machine.python(), "-m", "lab", name, *pairs]


def measure_ours(cpu: int, port: int, seconds: float, folder: Path) -> dict:
    out = folder / "ours.run.zip"
    command = lab_command("saturate", {"--port": port, "--seconds": seconds, "--out": out})
    run_pinned(cpu, command, timeout_s=seconds + 120)
    stats = rawio.read_run(out)[0]["stats"]
    out.unlink()
    return {
        "throughput": stats["throughput"],
        "answers": stats["answers"],
        "errors": stats["errors"],
        "client_cpu_us_per_request": stats["client_cpu_us_per_request"],
    }


def measure_wrk(cpu: int, port: int, seconds: float, script: Path) -> dict:
    url = f"http://127.0.0.1:{port}/predict"
    base = [WRK, "-t1", f"-c{CONNECTIONS}", "-s", str(script)]
    run_pinned(cpu, [*base, f"-d{WRK_WARMUP_S}s", url], timeout_s=60)
    output, cpu_s = run_pinned(cpu, [*base, f"-d{seconds:g}s", url], timeout_s=seconds + 60)
    found = parse_wrk(output)
    found["client_cpu_us_per_request"] = round(cpu_s * 1e6 / max(found["requests"], 1), 3)
    return found


def measure_open_loop(
    cpu: int, arrival_rate: float, setting: dict, seconds: float, folder: Path
) -> dict:
    out = folder / "open.run.zip"
    with ServiceProcess(cpu=cpu, **setting) as service:
        quiet = machine.quiet_check(cpu)
        options = {
            "--port": service.port,
            "--arrival-rate": f"{arrival_rate:.3f}",
            "--window-s": seconds,
            "--seed": OPEN_LOOP_SEED,
            "--out": out,
        }
        command = lab_command("openloop", options)
        run_pinned(cpu, command, timeout_s=seconds + 180)
    stats = rawio.read_run(out)[0]["stats"]
    out.unlink()
    kept = {key: stats[key] for key in OPEN_LOOP_STATS}
    return {"setting": setting, "idle_share_before": quiet["idle_share"], **kept}


def saturation_runs(cpu: int, runs: int, seconds: float, echo) -> list[dict]:
    """`runs` pairs, alternating which client goes first; a fresh service per measurement."""
    measured = []
    with tempfile.TemporaryDirectory(prefix="crosscheck-") as scratch:
        folder = Path(scratch)
        script = folder / "post.lua"
        script.write_text(wrk_script(artifacts.request_ids()[:LUA_IDS]))
        for run_index in range(runs):
            order = ("ours", "wrk") if run_index % 2 == 0 else ("wrk", "ours")
            for client in order:
                with ServiceProcess(batcher="none", cpu=cpu) as service:
                    quiet = machine.quiet_check(cpu)
                    if client == "ours":
                        found = measure_ours(cpu, service.port, seconds, folder)
                    else:
                        found = measure_wrk(cpu, service.port, seconds, script)
                row = {
                    "run": run_index,
                    "client": client,
                    "idle_share_before": quiet["idle_share"],
                    "quiet": quiet["quiet"],
                    **found,
                }
                echo(
                    f"run {run_index} {client:>4}: {found['throughput']:8.1f} answers/s, "
                    f"client {found['client_cpu_us_per_request']:6.1f} µs/request"
                )
                measured.append(row)
    return measured


def open_loop_points(cpu: int, saturation: float, seconds: float, echo) -> list[dict]:
    points = []
    with tempfile.TemporaryDirectory(prefix="crosscheck-") as scratch:
        for label, multiple, setting in OPEN_LOOP_POINTS:
            found = measure_open_loop(cpu, multiple * saturation, setting, seconds, Path(scratch))
            found = {"label": label, "rate_multiple": multiple, **found}
            echo(
                f"open loop {label:>15} ({multiple:g} × S = {found['arrival_rate']:.0f}/s): "
                f"client {found['client_cpu_us_per_request']:.1f} µs/request"
            )
            points.append(found)
    return points


def summarise(runs: list[dict]) -> dict:
    ours = [row["throughput"] for row in runs if row["client"] == "ours"]
    wrk = [row["throughput"] for row in runs if row["client"] == "wrk"]
    ours_median, wrk_median = statistics.median(ours), statistics.median(wrk)
    return {
        "ours_throughputs": ours,
        "wrk_throughputs": wrk,
        "ours_median": ours_median,
        "wrk_median": wrk_median,
        "ratio_ours_to_wrk": round(ours_median / wrk_median, 4),
    }


def table(result: dict) -> str:
    lines = ["run  client  answers/s  client µs/request  core idle before"]
    for row in result["saturation_runs"]:
        lines.append(
            f"{row['run']:>3}  {row['client']:>6}  {row['throughput']:9.1f}  "
            f"{row['client_cpu_us_per_request']:17.1f}  {row['idle_share_before']:.0%}"
        )
    summary = result["summary"]
    lines.append(
        f"median  ours {summary['ours_median']:.1f}/s  wrk {summary['wrk_median']:.1f}/s"
        f"  ratio ours/wrk {summary['ratio_ours_to_wrk']:.3f}"
    )
    for point in result["open_loop_client_cost"]:
        lines.append(
            f"open loop {point['label']:>15}: {point['arrival_rate']:8.1f}/s, "
            f"client {point['client_cpu_us_per_request']:.1f} µs/request"
        )
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
    runs = saturation_runs(args.cpu, args.runs, args.seconds, echo)
    summary = summarise(runs)
    points = open_loop_points(args.cpu, summary["ours_median"], args.seconds, echo)
    result = {
        "what": "S by our closed-loop client versus wrk, same service, same core; and the "
        "open-loop client's own CPU per request",
        "date": started.isoformat(timespec="seconds"),
        "cpu": args.cpu,
        "seconds": args.seconds,
        "connections": CONNECTIONS,
        "wrk_version": subprocess.run(
            [WRK, "--version"], capture_output=True, text=True
        ).stdout.splitlines()[0],
        "fingerprint": machine.fingerprint(),
        "git_commit": machine.git_commit(),
        "summary": summary,
        "saturation_runs": runs,
        "open_loop_client_cost": points,
    }
    rawio.write_json(args.out, result)
    print(table(result))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m lab.crosscheck", description=__doc__)
    add_arguments(parser)
    sys.exit(main(parser.parse_args()))
