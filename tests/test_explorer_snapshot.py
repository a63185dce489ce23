"""The explorer's saved Python (a Pyodide memory snapshot in IndexedDB), in real Chromium:
`pytest tests/test_explorer_snapshot.py`.

One first visit (a normal start, the snapshot saved) is made once for the module in a browser
profile on disk (a persistent user-data-dir); each test gets its own copy of that profile, so
its page loads are the same reader's later visits. Checks: a start from the saved copy prints
exactly what a normal start prints (and what CPython prints), with a reseeded random
generator; Stop still gives a fresh Python; a saved copy made from another Pyodide or other
results is not used; a damaged one, or one that Pyodide refuses, falls back to a normal
start and says so in the status line; a saved start that hangs is replaced by a normal one.
"""

import shutil
import tempfile
from pathlib import Path

import pytest

from tests.support import browser as site_tools

pytestmark = pytest.mark.timeout(300)

# Python that must print the same after either start: the explorer's calls (also compared
# with CPython), a reader's error, and the state a reader can see.
EXPLORER_CALLS = [
    "lookup(results, b=32, w=2, rate=1)",
    "lookup(results, b='none', w=0, rate=0.5)",
    "compare(results, b1=32, w1=0, b2=32, w2=2, rate=1)",
    "part_a(results, size=32)",
    "measured(results)",
    "lookup(results, b=64, w=0, rate=1)",
]
READER_CODE = [
    "compare(results)",
    "lookup(results, b=32",
    "import sys; sys.path",
    "sorted(sys.modules)",
    "import os; sorted(os.environ.items())",
    "import inspect; inspect.getsource(part_a)",
    "[name for name in sorted(globals()) if not name.startswith('__')]",
]


def open_profile(playwright, folder: str, init_script: str = ""):
    """A browser started on the profile kept in `folder`."""
    context = site_tools.launch_profile(playwright, folder, viewport={"width": 1280, "height": 900})
    if init_script:
        context.add_init_script(init_script)
    return context


@pytest.fixture(scope="module")
def first_visit(playwright, site):
    """A reader's first visit, once for the module: a normal start, the snapshot saved, and
    what that Python printed; the profile it leaves is each test's starting point."""
    site_dir, base = site
    with tempfile.TemporaryDirectory(prefix="lesson-profile-") as folder:
        context = open_profile(playwright, folder)
        try:
            watch = visit(context, base)
            assert engine(watch.page)["start"] == "normal"
            assert engine(watch.page)["reason"] == "none saved"
            assert wait_until_saved(watch.page) > 1_000_000
            normal = answers(watch.page, EXPLORER_CALLS + READER_CODE)
            first_random = site_tools.run_explorer(watch.page, "import random; random.random()")
            assert not watch.errors and not watch.blocked, (watch.errors, watch.blocked)
        finally:
            context.close()  # the profile is complete on disk once its browser has closed
        yield {"folder": folder, "normal": normal, "first_random": first_random}


@pytest.fixture
def profile(playwright, first_visit):
    """A copy of the first visit's browser profile for one test: open() -> a context on it
    (the same profile each time, so a second open is the same reader's next visit)."""
    opened = []
    with tempfile.TemporaryDirectory(prefix="lesson-profile-") as folder:
        shutil.copytree(first_visit["folder"], folder, dirs_exist_ok=True)

        def open_context(init_script: str = ""):
            context = open_profile(playwright, folder, init_script)
            opened.append(context)
            return context

        yield open_context
        for context in opened:
            context.close()


def record_page(context, base: str):
    """A page of the site that does not start Python, to read or change the saved record
    (the page shares the worker's IndexedDB)."""
    return site_tools.open_page(context, base, base + "words/").page


def visit(context, base: str):
    """Load the explorer page and wait until Python is ready; returns the Watch."""
    watch = site_tools.Watch(context, base)
    watch.page.goto(base + "explorer/", wait_until="load")
    watch.page.wait_for_function("window.explorerEngine.state === 'ready'")
    return watch


def engine(page) -> dict:
    return page.evaluate(
        "(({start, reason, note, savedBytes, notSaved}) =>"
        " ({start, reason, note, savedBytes, notSaved}))(window.explorerEngine)"
    )


def wait_until_saved(page) -> int:
    page.wait_for_function(
        "window.explorerEngine.savedBytes !== null || window.explorerEngine.notSaved",
        timeout=site_tools.patience.ms,
    )
    state = engine(page)
    assert not state["notSaved"], state
    return state["savedBytes"]


def status(page) -> str:
    return page.text_content('[data-role="status"]')


def answers(page, codes: list[str]) -> list[str]:
    return [site_tools.run_explorer(page, code) for code in codes]


# Changes the saved record the way a test needs (the page shares the worker's IndexedDB).
ALTER_RECORD = """async (change) => {
    const request = (r) => new Promise((ok, fail) => {
        r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
    const db = await request(indexedDB.open("lesson-explorer", 1));
    const read = () => request(db.transaction("snapshots").objectStore("snapshots").get("python"));
    const record = await read();
    if (change === "none") { db.close(); return {key: record.key, sha256: record.sha256}; }
    const hex = async (bytes) => Array.from(
        new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)),
        (b) => b.toString(16).padStart(2, "0")).join("");
    if (change.startsWith("key:")) {
        record.key[change.slice(4)] = "altered by the test";
    } else {
        const data = new Uint8Array(await record.data.arrayBuffer());
        if (change === "damage") {
            data[data.length >> 1] ^= 0xff;  // a flipped byte in the middle of Python's memory
        } else if (change === "refused") {
            data[0] ^= 0xff;  // Pyodide's own magic number, with a checksum that agrees
            record.sha256 = await hex(data);
        }
        record.data = new Blob([data]);
    }
    await request(db.transaction("snapshots", "readwrite").objectStore("snapshots")
        .put(record, "python"));
    const stored = await read();
    db.close();
    return {key: stored.key, sha256: stored.sha256};
}"""


def alter_record(page, change: str) -> dict:
    return page.evaluate(ALTER_RECORD, change)


def stored_record(page) -> dict:
    return page.evaluate(ALTER_RECORD, "none")


def assert_matches_cpython(site_dir: Path, page) -> None:
    for code in EXPLORER_CALLS:
        assert site_tools.run_explorer(page, code) == site_tools.cpython_answer(site_dir, code)


# --- the tests ---------------------------------------------------------------------------------


def test_a_saved_start_prints_exactly_what_a_normal_start_prints(site, profile, first_visit):
    site_dir, base = site
    normal, first_random = first_visit["normal"], first_visit["first_random"]
    context = profile()

    later = visit(context, base)  # a later visit in the first visit's browser profile
    assert engine(later.page)["start"] == "saved"
    assert "saved copy" in status(later.page)
    assert answers(later.page, EXPLORER_CALLS + READER_CODE) == normal
    for code, shown in zip(EXPLORER_CALLS, normal, strict=False):
        assert shown == site_tools.cpython_answer(site_dir, code), code
    assert "Traceback" in normal[len(EXPLORER_CALLS)]  # the reader's errors were compared too
    # The random generator is reseeded on every saved start, not replayed from the snapshot.
    randoms = {first_random, site_tools.run_explorer(later.page, "random.random()")}
    again = visit(context, base)
    assert engine(again.page)["start"] == "saved"
    randoms.add(site_tools.run_explorer(again.page, "import random; random.random()"))
    assert len(randoms) == 3, randoms
    for page_watch in (later, again):
        assert not page_watch.errors, page_watch.errors
        assert not page_watch.blocked, page_watch.blocked


def test_stop_still_gives_a_fresh_python(site, profile):
    _, base = site
    page = visit(profile(), base).page
    assert engine(page)["start"] == "saved"
    site_tools.run_explorer(page, "left_behind = 42")
    assert site_tools.run_explorer(page, "left_behind") == "42"
    page.fill('[data-role="code"]', "while True:\n    pass")
    page.click('[data-role="run"]')
    page.wait_for_selector('[data-role="stop"]:not([hidden])')
    page.click('[data-role="stop"]')
    page.wait_for_function(
        "document.querySelector('[data-role=output]').dataset.state === 'stopped'"
    )
    shown = site_tools.run_explorer(page, "left_behind")
    assert "NameError: name 'left_behind' is not defined" in shown
    assert engine(page)["start"] == "saved"  # the fresh Python came from the saved copy


@pytest.mark.parametrize("field", ["pyodide", "results_sha256", "explorer_sha256"])
def test_a_saved_copy_made_from_other_files_is_not_used(site, profile, field):
    site_dir, base = site
    context = profile()
    page = record_page(context, base)
    current = stored_record(page)
    assert alter_record(page, "key:" + field)["key"][field] == "altered by the test"

    later = visit(context, base)
    state = engine(later.page)
    assert state["start"] == "normal"
    assert state["reason"] == "made from other files or another browser"
    assert state["note"] == "" and "saved copy" not in status(later.page)
    assert_matches_cpython(site_dir, later.page)
    # The normal start saved a copy under the right key again.
    wait_until_saved(later.page)
    assert stored_record(later.page)["key"] == current["key"]


@pytest.mark.parametrize(
    "change, message",
    [
        ("damage", "it is damaged: its checksum is wrong"),
        ("refused", "Snapshot has invalid magic number"),
    ],
)
def test_a_damaged_saved_copy_falls_back_and_says_so(site, profile, change, message):
    site_dir, base = site
    context = profile()
    alter_record(record_page(context, base), change)

    later = visit(context, base)
    state = engine(later.page)
    assert state["start"] == "normal" and state["reason"] == "failed"
    shown = status(later.page)
    assert "could not be used" in shown and message in shown, shown
    assert shown.endswith("so it started the normal way."), shown
    assert_matches_cpython(site_dir, later.page)
    # A good copy replaces the damaged one, and the next visit starts from it.
    wait_until_saved(later.page)
    assert engine(visit(context, base).page)["start"] == "saved"


def test_a_saved_start_that_hangs_is_replaced_by_a_normal_one(site, profile):
    site_dir, base = site
    # The next visit allows the saved start no time at all, and the reader presses Run at once.
    impatient = profile("window.explorerSavedStartLimitMs = 0; window.explorerNoIdleStart = true")
    watch = site_tools.Watch(impatient, base)
    page = watch.page
    page.goto(base + "explorer/", wait_until="load")
    code = page.input_value('[data-role="code"]')
    shown = site_tools.run_explorer(page)
    assert shown == site_tools.cpython_answer(site_dir, code)
    state = engine(page)
    assert state["start"] == "normal" and "took too long" in state["note"], state
    assert "took too long, so it started the normal way." in status(page)
    assert not watch.errors, watch.errors
