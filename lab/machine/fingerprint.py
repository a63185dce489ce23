"""What the machine and the code are: the fingerprint every campaign and run records, and
the git commit. A campaign refuses to continue on a machine whose fingerprint differs."""

import os
import platform
import subprocess
from importlib import metadata

LIBRARIES = ("numpy", "scikit-learn", "fastapi", "uvicorn", "uvloop", "httptools", "pydantic")


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_id() -> str | None:
    """/etc/machine-id: tells two machines of the same kind apart (when their images differ)."""
    try:
        with open("/etc/machine-id") as handle:
            return handle.read().strip() or None
    except OSError:
        return None


def fingerprint() -> dict:
    """What must stay the same for runs to belong in one campaign."""
    versions = {}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "cpu_model": cpu_model(),
        "cores": os.cpu_count(),
        "machine": platform.machine(),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "machine_id": machine_id(),
        "libraries": versions,
    }


def git_commit() -> str:
    """HEAD (with -dirty for uncommitted changes); on a box with no .git (the AWS steps copy
    files, not the repository) the commit the steps recorded in LAB_GIT_COMMIT."""
    if os.environ.get("LAB_GIT_COMMIT"):
        return os.environ["LAB_GIT_COMMIT"]
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            cwd=os.path.dirname(__file__),
            timeout=10,
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            cwd=os.path.dirname(__file__),
            timeout=10,
        )
        commit = done.stdout.strip() or "unknown"
        return commit + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
