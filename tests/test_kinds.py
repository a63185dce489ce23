"""A run kind's one home (lab/rawformat/kinds.py): the lab's executors, the design's slow-run
kinds, the generator's reading and published sections, and the report all key on it.

Run: `.venv/bin/pytest tests/test_kinds.py`.
"""

from generator.arithmetic import results
from generator.reading import load
from lab import design
from lab.campaign import runner
from lab.rawformat import kinds


def test_every_kind_has_its_executor_and_every_executor_a_kind():
    assert list(runner.EXECUTORS) == list(kinds.KINDS)


def test_the_slow_run_kinds_of_a_new_campaign_are_as_before():
    """What campaign.json freezes for a new campaign (lab/campaign/description.py)."""
    assert design.SLOW_RUN_KINDS == ("part_a", "saturation", "part_b", "part_c")
    assert all(kinds.KINDS[name].slow_run_judged for name in design.SLOW_RUN_KINDS)


def test_the_generator_publishes_the_published_kinds():
    assert results.PUBLISHED_KINDS == ("part_a", "bits", "saturation", "part_b", "part_c",
                                       "switchback")  # fmt: skip
    assert kinds.published_kinds() == results.PUBLISHED_KINDS


def test_the_generator_reads_each_kind_by_its_fields_and_columns():
    assert not hasattr(load, "REQUIRED_META") and not hasattr(load, "REQUIRED_COLUMNS")
    assert kinds.KINDS["part_b"].columns[1] == ("batches_size", "batches_first_wait_us")
    for kind in kinds.ALL:
        assert all(isinstance(group, tuple) and group for group in kind.columns), kind.name
