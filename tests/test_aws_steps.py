"""Tests of lab/aws/steps.sh, the steps for running the campaign on a rented EC2 c7g.medium.

No AWS account is used: stand-in `aws`, `ssh` and `scp` (tests/aws_standins/standin.py) come
first on PATH, record their arguments and print canned answers. The script runs from a copy
inside a small temporary git repository, with a temporary state file (or, where a test says,
its default state folder under a temporary XDG_STATE_HOME or HOME).

Run: .venv/bin/pytest tests/test_aws_steps.py
"""

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("processes")  # real processes: the process tier

REPO = Path(__file__).resolve().parents[1]
STEPS_SH = REPO / "lab" / "aws" / "steps.sh"
STANDIN = REPO / "tests" / "aws_standins" / "standin.py"

REGION = "eu-north-1"
MY_IP = "203.0.113.9"
PUBLIC_IP = "198.51.100.7"
INSTANCE_ID = "i-0123456789abcdef0"
GROUP_ID = "sg-0fedcba9876543210"
AMI = "ami-0a1b2c3d4e5f60718"
CAMPAIGN = "aws-test"
KEY_MATERIAL = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"  # pragma: allowlist secret (a fake key)
    "b3BlbnNzaC1rZXktdjEAAAAAfakefake\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
HOST_KEYS = [
    "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBFake=",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeHostKeyForTheseTests0123456789",
]
PROGRESS = ["part_a run 1/605 done in 31.2 s, ETA 2:31:10", "part_b run 2/605 done in 9.0 s"]
CONSOLE = "\r\n".join(
    [
        "[    0.000000] Booting Linux on physical CPU 0x0000000000 [0x413fd0c1]",
        "[   12.345678] cloud-init[612]: Cloud-init v. 24.4 finished",
        "-----BEGIN SSH HOST KEY KEYS-----",
        *(key + " root@ip-172-31-0-1" for key in HOST_KEYS),
        "-----END SSH HOST KEY KEYS-----",
        "Ubuntu 24.04.1 LTS ip-172-31-0-1 ttyS0",
        "[lab] " + PROGRESS[0],
        "[  300.000001] systemd[1]: Started session-3.scope.",
        "[lab] " + PROGRESS[1],
    ]
)
DEMO_OUTPUT = "demo: 1 row 501.7 us per call\n"
STEP_ORDER = [
    "check",
    "access",
    "launch",
    "wait",
    "copy",
    "quiet",
    "start",
    "watch",
    "demo",
    "fetch",
    "teardown",
]


def sums(folder: Path, paths: list[str], prefix: str = "") -> str:
    """What `sha256sum` prints for these files, in byte order as `LC_ALL=C sort` gives."""
    lines = []
    for rel in sorted(paths):
        digest = hashlib.sha256((folder / rel).read_bytes()).hexdigest()
        lines.append(f"{digest}  {prefix}{rel}\n")
    return "".join(lines)


def files_under(folder: Path) -> list[str]:
    return [p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()]


def option(argv: list[str], name: str) -> str:
    """The value that follows `name` in argv."""
    assert name in argv, f"{name} missing from {argv}"
    return argv[argv.index(name) + 1]


def aws_op(call: dict) -> list[str]:
    """`aws ec2 run-instances ...` -> ["ec2", "run-instances"] (`ec2 wait X` keeps X)."""
    argv = call["argv"]
    return argv[:3] if argv[1] == "wait" else argv[:2]


class Lab:
    """A temporary repository, state folder, stand-in box and stand-in aws/ssh/scp."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.repo = tmp / "repo"
        self.state_file = tmp / "state" / ".state"
        self.box = tmp / "box"
        self.log = tmp / "calls.jsonl"
        self.rules_file = tmp / "rules.json"
        self._make_repo()
        self._make_box()
        self._make_bin()
        self.extra_rules: list[dict] = []
        self.calls_seen = 0
        self.write_rules()

    def _make_repo(self) -> None:
        repo = self.repo
        (repo / "lab" / "aws").mkdir(parents=True)
        shutil.copy2(STEPS_SH, repo / "lab" / "aws" / "steps.sh")
        (repo / "README.md").write_text("# the lesson\n")
        (repo / "lab" / "__init__.py").write_text("")
        (repo / "data" / "raw" / "old-campaign").mkdir(parents=True)
        (repo / "data" / "raw" / "old-campaign" / "campaign.json").write_text("{}\n")
        (repo / ".gitignore").write_text(".cache/\nuntracked.txt\n")
        git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org"]
        subprocess.run([*git, "init", "-q"], check=True)
        subprocess.run([*git, "add", "."], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "lab"], check=True)
        self.commit = subprocess.run(
            [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
        ).stdout.strip()
        (repo / "untracked.txt").write_text("not a lab file\n")
        self.data_home = repo / ".cache" / "lab"
        for rel, text in {
            "downloads/shop.txt": "00001 19970101 1 11.77\n",
            "artifacts/manifest.json": '{"sha256": {}}\n',
            "artifacts/model.pkl": "model bytes",
        }.items():
            (self.data_home / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.data_home / rel).write_text(text)

    def _make_box(self) -> None:
        """The raw files the campaign left on the box."""
        raw = self.box / "lab" / "data" / "raw" / CAMPAIGN
        (raw / "runs").mkdir(parents=True)
        (raw / "campaign.json").write_text('{"profile": "full"}\n')
        (raw / "runs" / "part_a-1.run.zip").write_bytes(bytes(range(256)) * 8)

    def _make_bin(self) -> None:
        self.bin = self.tmp / "bin"
        self.bin.mkdir()
        for program in ("aws", "ssh", "scp"):
            wrapper = self.bin / program
            wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{STANDIN}" {program} "$@"\n')
            wrapper.chmod(0o755)

    def default_rules(self) -> list[dict]:
        data_sums = sums(self.data_home, files_under(self.data_home))
        box_lab = self.box / "lab"
        raw_files = files_under(box_lab / "data" / "raw" / CAMPAIGN)
        raw_sums = sums(box_lab, [f"data/raw/{CAMPAIGN}/{rel}" for rel in raw_files])
        return [
            {
                "program": "aws",
                "contains": ["get-caller-identity"],
                "stdout": "arn:aws:iam::123456789012:user/student\n",
            },
            {"program": "aws", "contains": ["describe-instances", "--filters"], "stdout": ""},
            {
                "program": "aws",
                "contains": ["describe-instances", "--instance-ids"],
                "stdout": PUBLIC_IP + "\n",
            },
            {"program": "aws", "contains": ["create-key-pair"], "stdout": KEY_MATERIAL + "\n"},
            {"program": "aws", "contains": ["create-security-group"], "stdout": GROUP_ID + "\n"},
            {"program": "aws", "contains": ["ssm", "get-parameter"], "stdout": AMI + "\n"},
            {
                "program": "aws",
                "contains": ["describe-images"],
                "stdout": "arm64\t/dev/sda1\tubuntu-noble-24.04-arm64-server-20250101\n",
            },
            {"program": "aws", "contains": ["run-instances"], "stdout": INSTANCE_ID + "\n"},
            {"program": "aws", "contains": ["get-console-output"], "stdout": CONSOLE + "\n"},
            {"program": "aws", "contains": ["terminate-instances"], "stdout": "shutting-down\n"},
            {"program": "ssh", "contains": ["kill -0", "echo stopped"], "stdout": "stopped\n"},
            {
                "program": "ssh",
                "contains": ["cd ~/lab/.cache/lab", "sha256sum"],
                "stdout": data_sums,
            },
            {
                "program": "ssh",
                "contains": [f"data/raw/{CAMPAIGN}", "sha256sum"],
                "stdout": raw_sums,
            },
            {"program": "ssh", "contains": ["python -m lab demo"], "stdout": DEMO_OUTPUT},
        ]

    def write_rules(self) -> None:
        rules = self.extra_rules + self.default_rules()
        self.rules_file.write_text(json.dumps(rules))

    def add_rule(self, program: str, contains: list[str], stdout: str, rc: int = 0) -> None:
        """A rule that wins over the defaults."""
        rule = {"program": program, "contains": contains, "stdout": stdout, "rc": rc}
        self.extra_rules.insert(0, rule)
        self.write_rules()

    def env(self, **extra: str | None) -> dict:
        """The steps' environment; a value None leaves that variable out."""
        env = {
            key: value
            for key, value in os.environ.items()
            if key
            not in {
                "AWS_DEFAULT_REGION",
                "LAB_HOME",
                "FORCE",
                "PROFILE",
                "AMI_ID",
                "BOX_USER",
                "XDG_STATE_HOME",
            }
        }
        env.update(
            PATH=f"{self.bin}{os.pathsep}{os.environ['PATH']}",
            AWS_REGION=REGION,
            AWS_STATE_FILE=str(self.state_file),
            MY_IP=MY_IP,
            CAMPAIGN=CAMPAIGN,
            STANDIN_LOG=str(self.log),
            STANDIN_RULES=str(self.rules_file),
            STANDIN_BOX=str(self.box),
        )
        env.update(extra)
        return {key: value for key, value in env.items() if value is not None}

    def run(self, step: str, **extra_env: str | None) -> tuple[subprocess.CompletedProcess, list]:
        """Run one step; return its result and the stand-in calls it made."""
        done = subprocess.run(
            [str(self.repo / "lab" / "aws" / "steps.sh"), step],
            env=self.env(**extra_env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        calls = self.calls()
        new, self.calls_seen = calls[self.calls_seen :], len(calls)
        return done, new

    def calls(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def state(self) -> dict:
        if not self.state_file.exists():
            return {}
        lines = self.state_file.read_text().splitlines()
        return dict(line.split("=", 1) for line in lines)

    def git_status(self) -> str:
        return subprocess.run(
            ["git", "-C", str(self.repo), "status", "--porcelain", "--ignored"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    def write_state(self, **values: str) -> None:
        self.state_file.parent.mkdir(parents=True, exist_ok=True)
        self.state_file.write_text("".join(f"{k}={v}\n" for k, v in values.items()))

    def ssh_ready_state(self, **more: str) -> None:
        """A state file as `wait` leaves it, with a key file that exists."""
        key_file = self.state_file.parent / "batching-lab-test.pem"
        self.state_file.parent.mkdir(parents=True, exist_ok=True)
        key_file.write_text(KEY_MATERIAL + "\n")
        self.write_state(
            REGION=REGION,
            KEY_NAME="batching-lab-test",
            KEY_FILE=str(key_file),
            GROUP_ID=GROUP_ID,
            INSTANCE_ID=INSTANCE_ID,
            PUBLIC_IP=PUBLIC_IP,
            BOX_USER="ubuntu",
            **more,
        )


@pytest.fixture
def lab(tmp_path: Path) -> Lab:
    return Lab(tmp_path)


def ok(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"


def programs(calls: list[dict]) -> list[str]:
    return [call["program"] for call in calls]


def test_shellcheck_is_clean():
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is not installed (Debian/Ubuntu: apt-get install shellcheck)")
    done = subprocess.run([shellcheck, str(STEPS_SH)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def box_scripts() -> list[str]:
    """The bash scripts steps.sh sends to the box (its `<<'BOX'` here-documents)."""
    scripts, current = [], None
    for line in STEPS_SH.read_text().splitlines():
        if current is None and line.endswith("<<'BOX'"):
            current = []
        elif current is not None and line == "BOX":
            scripts.append("\n".join(current) + "\n")
            current = None
        elif current is not None:
            current.append(line)
    return scripts


def test_the_scripts_run_on_the_box_are_shellcheck_clean(tmp_path: Path):
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is not installed (Debian/Ubuntu: apt-get install shellcheck)")
    scripts = box_scripts()
    assert len(scripts) == 3  # copy's set-up, quiet, start
    for index, script in enumerate(scripts):
        path = tmp_path / f"box-{index}.sh"
        path.write_text(script)
        done = subprocess.run([shellcheck, "-s", "bash", str(path)], capture_output=True, text=True)
        assert done.returncode == 0, script + done.stdout


def test_help_lists_every_step_in_order(lab: Lab):
    done, calls = lab.run("--help")
    ok(done)
    positions = [done.stdout.index(f"\n  {step} ") for step in STEP_ORDER]
    assert positions == sorted(positions)
    assert calls == []
    done, _ = lab.run("launch-everything")
    assert done.returncode != 0
    assert "unknown step" in done.stderr


def test_the_steps_in_order_make_the_expected_calls(lab: Lab):
    # check: who am I, and is any course box running or pending?
    done, calls = lab.run("check")
    ok(done)
    assert [aws_op(c) for c in calls] == [
        ["sts", "get-caller-identity"],
        ["ec2", "describe-instances"],
    ]
    filters = calls[1]["argv"]
    assert "Name=tag:course,Values=batching-lab" in filters
    assert "Name=instance-state-name,Values=pending,running" in filters
    assert lab.state() == {"REGION": REGION}

    # access: key pair into a private file, a group open to MY_IP/32 on port 22 only
    done, calls = lab.run("access")
    ok(done)
    assert [aws_op(c) for c in calls] == [
        ["ec2", "create-key-pair"],
        ["ec2", "create-security-group"],
        ["ec2", "authorize-security-group-ingress"],
    ]
    state = lab.state()
    key_name, key_file = state["KEY_NAME"], Path(state["KEY_FILE"])
    assert option(calls[0]["argv"], "--key-name") == key_name
    assert key_file.read_text() == KEY_MATERIAL + "\n"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    ingress = calls[2]["argv"]
    assert option(ingress, "--group-id") == GROUP_ID == state["GROUP_ID"]
    assert option(ingress, "--cidr") == f"{MY_IP}/32"
    assert option(ingress, "--port") == "22"
    assert option(ingress, "--protocol") == "tcp"

    # launch: the arm64 image from SSM, a c7g.medium with the saved key and group
    done, calls = lab.run("launch")
    ok(done)
    assert [aws_op(c) for c in calls] == [
        ["ssm", "get-parameter"],
        ["ec2", "describe-images"],
        ["ec2", "run-instances"],
    ]
    assert "arm64" in option(calls[0]["argv"], "--name")
    run = calls[2]["argv"]
    assert option(run, "--instance-type") == "c7g.medium"
    assert option(run, "--image-id") == AMI
    assert option(run, "--key-name") == key_name
    assert option(run, "--security-group-ids") == GROUP_ID
    assert "Key=course,Value=batching-lab" in option(run, "--tag-specifications")
    assert lab.state()["INSTANCE_ID"] == INSTANCE_ID

    # wait: running, address, status ok, host keys from the console, then one ssh
    done, calls = lab.run("wait")
    ok(done)
    assert [aws_op(c) if c["program"] == "aws" else ["ssh"] for c in calls] == [
        ["ec2", "wait", "instance-running"],
        ["ec2", "describe-instances"],
        ["ec2", "wait", "instance-status-ok"],
        ["ec2", "get-console-output"],
        ["ssh"],
    ]
    for call in calls[:4]:
        assert INSTANCE_ID in call["argv"]
    assert lab.state()["PUBLIC_IP"] == PUBLIC_IP
    known_hosts = Path(str(lab.state_file) + ".known_hosts").read_text().splitlines()
    assert known_hosts == [f"{PUBLIC_IP} {key}" for key in HOST_KEYS]
    login = calls[4]["argv"]
    assert f"ubuntu@{PUBLIC_IP}" in login and login[-1] == "true"
    assert option(login, "-i") == str(key_file)
    assert "StrictHostKeyChecking=yes" in login

    # copy: the two tarballs up, set-up script, then the box's data sha256
    done, calls = lab.run("copy")
    ok(done)
    assert programs(calls) == ["scp", "ssh", "ssh"]
    assert calls[0]["argv"][-1] == f"ubuntu@{PUBLIC_IP}:"
    with tarfile.open(lab.box / "lab-files.tar.gz") as tar:
        shipped = set(tar.getnames())
    assert {"README.md", "lab/__init__.py", "lab/aws/steps.sh", ".gitignore"} <= shipped
    assert "untracked.txt" not in shipped
    assert not any(name.startswith("data/raw/") for name in shipped)
    with tarfile.open(lab.box / "lab-data.tar") as tar:
        data_files = {name for name in tar.getnames() if "." in Path(name).name}
    assert data_files == {"downloads/shop.txt", "artifacts/manifest.json", "artifacts/model.pkl"}
    setup = calls[1]
    assert setup["argv"][-3:] == ["0.13.8", "3.11.7", lab.commit]
    for piece in ("uv==$uv_version", "uv python install", "uv sync --frozen", "tar -xzf"):
        assert piece in setup["stdin"]
    assert "sha256sum" in " ".join(calls[2]["argv"])
    assert "COPIED" in lab.state()
    assert lab.state()["GIT_COMMIT"] == lab.commit

    # quiet: one script that stops and masks the timers and cron
    done, calls = lab.run("quiet")
    ok(done)
    assert programs(calls) == ["ssh"]
    for unit in (
        "apt-daily.timer",
        "apt-daily-upgrade.timer",
        "unattended-upgrades.service",
        "man-db.timer",
        "fstrim.timer",
        "cron.service",
        "mask --now",
    ):
        assert unit in calls[0]["stdin"]

    # teardown before fetch is refused: nothing is deleted
    done, calls = lab.run("start")
    ok(done)
    assert programs(calls) == ["ssh"]
    start = calls[0]
    assert start["argv"][-3:] == ["full", CAMPAIGN, lab.commit]
    for piece in (
        "setsid nohup",
        "python -m lab run --profile",
        "--cpu 0",
        "/dev/ttyS0",
        "[lab] ",
        "tee",
    ):
        assert piece in start["stdin"]
    assert lab.state()["CAMPAIGN"] == CAMPAIGN
    done, calls = lab.run("teardown")
    assert done.returncode != 0
    assert "steps.sh fetch` first" in done.stderr
    assert calls == []

    # watch: the console, no login; only the lab's progress lines are printed
    done, calls = lab.run("watch")
    ok(done)
    assert programs(calls) == ["aws"]
    assert aws_op(calls[0]) == ["ec2", "get-console-output"]
    assert option(calls[0]["argv"], "--instance-id") == INSTANCE_ID
    assert "--latest" in calls[0]["argv"]
    assert done.stdout.splitlines() == PROGRESS

    # demo: on the box, once the campaign is not running
    done, calls = lab.run("demo")
    ok(done)
    assert programs(calls) == ["ssh", "ssh"]
    assert "python -m lab demo" in calls[1]["argv"][-1]
    assert done.stdout == DEMO_OUTPUT

    # fetch: box sha256, the campaign folder down with scp -r, checked here
    done, calls = lab.run("fetch")
    ok(done)
    assert programs(calls) == ["ssh", "ssh", "scp"]
    down = calls[2]["argv"]
    assert "-r" in down
    assert down[-2:] == [f"ubuntu@{PUBLIC_IP}:lab/data/raw/{CAMPAIGN}", f"{lab.repo}/data/raw/"]
    here = lab.repo / "data" / "raw" / CAMPAIGN
    there = lab.box / "lab" / "data" / "raw" / CAMPAIGN
    assert sorted(files_under(here)) == sorted(files_under(there)) != []
    for rel in files_under(there):
        assert (here / rel).read_bytes() == (there / rel).read_bytes()

    # teardown: instance, then group, then key pair; the key file and state are gone
    done, calls = lab.run("teardown")
    ok(done)
    assert [aws_op(c) for c in calls] == [
        ["ec2", "terminate-instances"],
        ["ec2", "wait", "instance-terminated"],
        ["ec2", "delete-security-group"],
        ["ec2", "delete-key-pair"],
    ]
    assert option(calls[0]["argv"], "--instance-ids") == INSTANCE_ID
    assert option(calls[1]["argv"], "--instance-ids") == INSTANCE_ID
    assert option(calls[2]["argv"], "--group-id") == GROUP_ID
    assert option(calls[3]["argv"], "--key-name") == key_name
    assert not key_file.exists()
    assert not lab.state_file.exists()
    assert list(lab.state_file.parent.iterdir()) == []

    # every aws call of the whole sequence went to the one region
    for call in lab.calls():
        if call["program"] == "aws":
            assert option(call["argv"], "--region") == REGION


def test_check_refuses_when_a_course_box_is_running(lab: Lab):
    lab.add_rule(
        "aws", ["describe-instances", "--filters"], "i-0aaaabbbbcccc1111\trunning\t192.0.2.1\n"
    )
    done, calls = lab.run("check")
    assert done.returncode != 0
    assert "i-0aaaabbbbcccc1111" in done.stderr
    assert "already running" in done.stderr
    assert not lab.state_file.exists()


@pytest.mark.parametrize(
    ("step", "saved", "first"),
    [
        ("launch", {}, "access"),
        ("wait", {}, "launch"),
        ("copy", {}, "wait"),
        ("watch", {}, "launch"),
        ("fetch", {}, "start"),
        ("demo", {"ssh_ready": True}, "copy"),
        ("quiet", {"ssh_ready": True}, "copy"),
        ("start", {"ssh_ready": True, "GIT_COMMIT": "abc", "COPIED": "yes"}, "quiet"),
    ],
)
def test_a_step_without_its_ids_names_the_step_to_run_first(lab: Lab, step, saved, first):
    saved = dict(saved)
    if saved.pop("ssh_ready", False):
        lab.ssh_ready_state(**saved)
    else:
        lab.write_state(REGION=REGION, **saved)
    done, calls = lab.run(step)
    assert done.returncode != 0
    assert f"run `lab/aws/steps.sh {first}` first" in done.stderr
    assert calls == []


@pytest.mark.parametrize("my_ip", ["", "300.1.2.3", "example.org"])
def test_access_needs_a_valid_my_ip_before_creating_anything(lab: Lab, my_ip):
    done, calls = lab.run("access", MY_IP=my_ip)
    assert done.returncode != 0
    assert "MY_IP" in done.stderr
    assert calls == []


def test_copy_stops_when_the_box_data_differ(lab: Lab):
    lab.ssh_ready_state()
    lab.add_rule("ssh", ["cd ~/lab/.cache/lab", "sha256sum"], "0" * 64 + "  artifacts/model.pkl\n")
    done, calls = lab.run("copy")
    assert done.returncode != 0
    assert "differ" in done.stderr
    assert programs(calls) == ["scp", "ssh", "ssh"]
    assert "COPIED" not in lab.state()


def test_fetch_and_demo_refuse_while_the_campaign_runs(lab: Lab):
    lab.ssh_ready_state(CAMPAIGN=CAMPAIGN, COPIED="yes")
    lab.add_rule("ssh", ["kill -0", "echo stopped"], "running\n")
    for step in ("fetch", "demo"):
        done, calls = lab.run(step)
        assert done.returncode != 0
        assert "running" in done.stderr
        assert programs(calls) == ["ssh"]
    assert not (lab.repo / "data" / "raw" / CAMPAIGN).exists()


def test_fetched_files_that_differ_from_the_box_fail(lab: Lab):
    lab.ssh_ready_state(CAMPAIGN=CAMPAIGN)
    wrong = f"{'0' * 64}  data/raw/{CAMPAIGN}/campaign.json\n"
    lab.add_rule("ssh", [f"data/raw/{CAMPAIGN}", "sha256sum"], wrong)
    done, _ = lab.run("fetch")
    assert done.returncode != 0
    assert "differ" in done.stderr
    assert "FETCHED" not in lab.state()


def test_state_from_another_region_is_refused(lab: Lab):
    lab.write_state(REGION="eu-north-1", INSTANCE_ID=INSTANCE_ID)
    done, calls = lab.run("watch", AWS_REGION="us-east-1")
    assert done.returncode != 0
    assert "eu-north-1" in done.stderr and "us-east-1" in done.stderr
    assert calls == []


def test_teardown_after_a_failed_launch_deletes_what_exists(lab: Lab):
    key_file = lab.state_file.parent / "batching-lab-x.pem"
    key_file.parent.mkdir(parents=True)
    key_file.write_text("key\n")
    lab.write_state(
        REGION=REGION, KEY_NAME="batching-lab-x", KEY_FILE=str(key_file), GROUP_ID=GROUP_ID
    )
    done, calls = lab.run("teardown")
    ok(done)
    assert [aws_op(c) for c in calls] == [
        ["ec2", "delete-security-group"],
        ["ec2", "delete-key-pair"],
    ]
    assert not key_file.exists() and not lab.state_file.exists()


# --- the state and the private key stay outside the repository -----------------------------


def test_the_old_state_names_and_private_keys_are_git_ignored():
    names = ["lab/aws/.state", "lab/aws/.state.known_hosts", "lab/aws/batching-lab-1.pem"]
    names.append("anywhere/else/key.pem")
    done = subprocess.run(
        ["git", "-C", str(REPO), "check-ignore", "--no-index", *names],
        capture_output=True,
        text=True,
    )
    assert done.stdout.split() == names, done.stderr


@pytest.mark.parametrize("where", ["XDG_STATE_HOME", "HOME"])
def test_access_keeps_the_key_in_a_private_folder_outside_the_repository(lab: Lab, where):
    if where == "XDG_STATE_HOME":
        env = {"XDG_STATE_HOME": str(lab.tmp / "xdg-state")}
        folder = lab.tmp / "xdg-state" / "batching-lab"
    else:
        env = {"HOME": str(lab.tmp / "home")}
        folder = lab.tmp / "home" / ".local" / "state" / "batching-lab"
    lab.state_file = folder / "state"
    before = lab.git_status()
    for step in ("check", "access"):
        done, _ = lab.run(step, AWS_STATE_FILE=None, **env)
        ok(done)
    key_file = Path(lab.state()["KEY_FILE"])
    assert key_file.parent == folder and key_file.suffix == ".pem"
    assert key_file.read_text() == KEY_MATERIAL + "\n"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(lab.state_file.stat().st_mode) == 0o600
    assert str(folder) in done.stderr  # access says where the key went
    # Nothing new in the repository, not even an ignored file.
    assert lab.git_status() == before
    assert list(lab.repo.rglob("*.pem")) == [] and list(lab.repo.rglob(".state*")) == []

    done, _ = lab.run("teardown", AWS_STATE_FILE=None, **env)
    ok(done)
    assert not key_file.exists() and not folder.exists()  # the default folder goes too


@pytest.mark.parametrize(
    "inside", ["lab/aws/.state", "lab/aws/new-folder/state", "via-link/state", "XDG_STATE_HOME"]
)
@pytest.mark.parametrize("step", ["check", "access", "teardown"])
def test_a_state_file_inside_a_git_work_tree_is_refused(lab: Lab, inside, step):
    (lab.tmp / "via-link").symlink_to(lab.repo / "lab")  # outside by name, inside in fact
    if inside == "XDG_STATE_HOME":
        env = {"AWS_STATE_FILE": None, "XDG_STATE_HOME": str(lab.repo / "state")}
        named = lab.repo / "state" / "batching-lab" / "state"
    else:
        named = (lab.repo if not inside.startswith("via-link") else lab.tmp) / inside
        env = {"AWS_STATE_FILE": str(named)}
    before = lab.git_status()
    done, calls = lab.run(step, **env)
    assert done.returncode != 0
    assert f"refusing to keep the state file at {named}" in done.stderr
    assert f"inside the git work tree {lab.repo}" in done.stderr
    assert "AWS_STATE_FILE" in done.stderr  # says how to fix it
    assert calls == []
    assert lab.git_status() == before
    assert list(lab.repo.rglob("*.pem")) == []


def test_a_state_file_left_in_lab_aws_by_an_older_version_is_moved_out(lab: Lab):
    old_dir = lab.repo / "lab" / "aws"
    old_key = old_dir / "batching-lab-old.pem"
    old_key.write_text(KEY_MATERIAL + "\n")
    (old_dir / ".state").write_text(
        f"REGION={REGION}\nKEY_NAME=batching-lab-old\nKEY_FILE={old_key}\nGROUP_ID={GROUP_ID}\n"
    )
    (old_dir / ".state.known_hosts").write_text(f"{PUBLIC_IP} {HOST_KEYS[1]}\n")
    folder = lab.tmp / "xdg-state" / "batching-lab"
    lab.state_file = folder / "state"
    env = {"AWS_STATE_FILE": None, "XDG_STATE_HOME": str(lab.tmp / "xdg-state")}
    done, calls = lab.run("launch", **env, AMI_ID=AMI)
    ok(done)
    assert "moved the state file and the private key out of the repository" in done.stderr
    assert sorted(p.name for p in old_dir.iterdir()) == ["steps.sh"]
    assert lab.state()["KEY_FILE"] == str(folder / old_key.name)
    assert (folder / old_key.name).read_text() == KEY_MATERIAL + "\n"
    assert (folder / "state.known_hosts").exists()
    assert option(calls[-1]["argv"], "--key-name") == "batching-lab-old"
    done, calls = lab.run("teardown", **env, FORCE="1")
    ok(done)
    assert ["ec2", "delete-key-pair"] in [aws_op(c) for c in calls]
    assert not folder.exists()
