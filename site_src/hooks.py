"""MkDocs hook: run the generator before every build so docs/ always matches data/."""

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def on_pre_build(config, **kwargs):
    docs = ROOT / "docs"
    docs.mkdir(exist_ok=True)
    for page in sorted((ROOT / "site_src" / "pages").glob("*.md")):
        shutil.copyfile(page, docs / page.name)
