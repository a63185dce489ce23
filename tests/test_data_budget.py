"""The raw data's budget: each campaign under data/raw/ under 40 MiB, the whole of data/ under
100 MiB (issue 15: two full campaigns are committed side by side). A campaign past it means
a column was stored more precisely than data/README.md says, or a run was kept twice.

Run: `.venv/bin/pytest tests/test_data_budget.py`.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIB = 1024 * 1024
CAMPAIGN_BUDGET = 40 * MIB
DATA_BUDGET = 100 * MIB


def size_of(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def test_every_campaign_is_under_its_budget():
    campaigns = sorted(path.parent for path in (ROOT / "data" / "raw").glob("*/campaign.json"))
    assert campaigns, "no campaign under data/raw/"
    over = {c.name: size_of(c) / MIB for c in campaigns if size_of(c) >= CAMPAIGN_BUDGET}
    assert not over, f"campaigns over {CAMPAIGN_BUDGET // MIB} MiB (MiB): {over}"


def test_data_is_under_its_budget():
    total = size_of(ROOT / "data")
    assert 0 < total < DATA_BUDGET, f"data/ holds {total / MIB:.1f} MiB, over {DATA_BUDGET // MIB}"
