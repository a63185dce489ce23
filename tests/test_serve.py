"""`make serve` keeps live reload without a hook: `pytest tests/test_serve.py`.

site_src/serve.py on a copy of the site's sources (the generator's fixture campaign, a port of
its own): the page is served, then a page template is changed and the served page shows the
change without a restart (the generator ran again, MkDocs rebuilt); a template broken on
purpose prints the generator's one line and the last good page stays served; stopping serve.py
stops MkDocs' server too.
"""

import functools
import os
import re
import shutil
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support.browser import free_port
from tests.support.sitebuild import FIXTURE_RAW, ROOT

pytestmark = pytest.mark.timeout(300)


def fetched(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.read().decode()
    except OSError:
        return None


def wait_for(read, text: str, server, seconds: float = 180) -> str:
    """What `read()` returns once it holds `text` (the server still running)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert server.poll() is None, "serve.py stopped"
        found = read()
        if found is not None and text in found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"never saw {text!r}")


def test_a_changed_template_is_served_again_and_a_broken_one_keeps_the_last_good_page(
    tmp_path, processes
):
    copy = tmp_path / "project"
    shutil.copytree(
        ROOT / "site_src", copy / "site_src", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copyfile(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    (copy / "vendor").symlink_to(ROOT / "vendor")
    port = free_port()
    env = dict(os.environ, LESSON_RAW=str(FIXTURE_RAW), PYTHONPATH=str(ROOT))
    log = tmp_path / "serve.log"
    with log.open("w") as output:
        server = processes.Popen(
            [sys.executable, str(copy / "site_src" / "serve.py"), "--dev-addr",
             f"127.0.0.1:{port}"],
            cwd=copy, env=env, stdout=output, stderr=processes.STDOUT,
        )  # fmt: skip
    page = functools.partial(fetched, f"http://127.0.0.1:{port}/words/")
    try:
        wait_for(page, "<h1", server)
        template = copy / "site_src" / "pages" / "words.md.j2"
        template.write_text(template.read_text() + "\nA sentence added while serving.\n")
        wait_for(page, "A sentence added while serving.", server)
        template.write_text(template.read_text() + "\n{{ fig.no_such_figure|num }}\n")
        said = wait_for(log.read_text, "no_such_figure", server)
        assert "the last good site stays served" in said, said
        assert "A sentence added while serving." in page()
    finally:
        server.terminate()
        server.wait(timeout=60)
    mkdocs = int(re.search(r"mkdocs serve is process (\d+)", log.read_text())[1])
    left = Path(f"/proc/{mkdocs}/cmdline")
    assert not (left.exists() and b"mkdocs" in left.read_bytes()), "mkdocs serve outlived serve.py"
