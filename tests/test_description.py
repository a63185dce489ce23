"""Every committed campaign describes itself (rules, guesses, names), in campaign.json or in
the sidecar beside it; the sidecars are what data/rebuild_description.py rebuilds from the
git history at each campaign's commit; the test fixture carries its campaign's description.

Run: `.venv/bin/pytest tests/test_description.py`
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from generator.reading.description import SIDECAR, DescriptionError, read_description

ROOT = Path(__file__).resolve().parent.parent
RAW = ROOT / "data" / "raw"
FIXTURE = ROOT / "tests" / "fixtures" / "raw"
CAMPAIGNS = sorted(p.parent for p in RAW.glob("*/campaign.json"))


@pytest.mark.parametrize("folder", CAMPAIGNS, ids=lambda p: p.name)
def test_every_committed_campaign_describes_itself(folder):
    described = read_description(folder)
    info = json.loads((folder / "campaign.json").read_text())
    assert described.guesses_commit == info["git_commit"]
    assert described.quiet_rate in [f"{r:g}" for r in info["design"]["rate_multiples"]]
    assert described.quiet["seconds"] == info["design"]["quiet_seconds"]
    assert described.quiet["tries"] == info["design"]["quiet_tries"]


def test_the_sidecars_are_what_the_git_history_gives(processes):
    sidecars = [p.parent for p in RAW.glob(f"*/{SIDECAR}")]
    assert sidecars, "the campaigns measured before issue 12 carry a sidecar"
    done = subprocess.run(
        [sys.executable, "data/rebuild_description.py", "--check", *map(str, sidecars)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("as rebuilt") == len(sidecars)


def test_a_sidecar_says_how_it_was_rebuilt():
    for path in RAW.glob(f"*/{SIDECAR}"):
        rebuilt = json.loads(path.read_text())["rebuilt_from"]
        info = json.loads((path.parent / "campaign.json").read_text())
        assert rebuilt["git_commit"] == info["git_commit"]
        assert rebuilt["by"] == "data/rebuild_description.py"
        assert "lab/design.py" in rebuilt["read"]


def test_the_fixture_carries_its_campaigns_description():
    (folder,) = [p.parent for p in FIXTURE.glob("*/campaign.json")]
    source = RAW / folder.name
    for name in ("campaign.json", SIDECAR):  # the description is in one, or a sidecar beside
        assert (folder / name).exists() == (source / name).exists(), name
        if (source / name).exists():
            assert (folder / name).read_bytes() == (source / name).read_bytes(), name


def test_campaign_json_wins_over_a_sidecar_and_a_partial_one_is_named(tmp_path):
    source = CAMPAIGNS[0]
    for name in ("campaign.json", SIDECAR):
        (tmp_path / name).write_bytes((source / name).read_bytes())
    info = json.loads((tmp_path / "campaign.json").read_text())
    described = json.loads((tmp_path / SIDECAR).read_text())
    described["names"]["busy_rate"] = "2"
    info.update({key: described[key] for key in ("rules", "guesses", "names")})
    (tmp_path / "campaign.json").write_text(json.dumps(info))
    with pytest.raises(DescriptionError, match="campaign.json: missing field 'description_v"):
        read_description(tmp_path)  # campaign.json describes itself, but not completely
    info["description_version"] = 1
    (tmp_path / "campaign.json").write_text(json.dumps(info))
    assert read_description(tmp_path).busy_rate == "2"
