"""A ServiceSpec (lab/servicespec.py) comes back whole from both of its transports: the
command line of `python -m lab serve` and the launcher's JSON; and the plain flags stay the
ones a past commit's `python -m lab serve` accepts (lab/bench/sidebyside.py starts those).

Run: `.venv/bin/pytest tests/test_servicespec.py`
"""

import argparse
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lab import servicespec
from lab.design import SETTINGS, Switchback
from lab.servicespec import NONE, QUEUE_B1, ServiceSpec, Setting

# Any values the fields can hold, in the design or not: the transports carry a setting, the
# app judges it (tests/test_bad_input.py).
settings = st.builds(
    Setting,
    st.sampled_from(("none", "queue")),
    st.integers(min_value=0, max_value=4096),
    st.floats(min_value=0, max_value=1e4, allow_nan=False),
)
plain_specs = st.builds(
    ServiceSpec, settings, max_records=st.integers(min_value=0, max_value=10**6)
)
two_armed_specs = st.builds(
    ServiceSpec,
    settings,
    arm_b=settings,
    added_work_us_b=st.floats(min_value=0, max_value=1e6, allow_nan=False),
    max_records=st.integers(min_value=0, max_value=10**6),
    swap_routes=st.booleans(),
)
specs = plain_specs | two_armed_specs


def parse(arguments: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    servicespec.add_arguments(parser)
    return parser.parse_args(arguments)


@given(specs)
def test_a_spec_comes_back_whole_from_its_command_line(spec):
    assert ServiceSpec.from_arguments(parse(spec.arguments())) == spec


@given(specs)
def test_a_spec_comes_back_whole_from_its_json(spec):
    assert ServiceSpec.from_json(json.loads(json.dumps(spec.to_json()))) == spec


def test_every_setting_of_the_design_and_a_switchback_pair_round_trip():
    for setting in SETTINGS:
        spec = ServiceSpec(setting)
        assert ServiceSpec.from_arguments(parse(spec.arguments())) == spec
        assert ServiceSpec.from_json(spec.to_json()) == spec
    pair = Switchback(NONE, QUEUE_B1, 150.0).service_spec()
    assert pair == ServiceSpec(NONE, arm_b=QUEUE_B1, added_work_us_b=150.0)
    assert ServiceSpec.from_arguments(parse(pair.arguments())) == pair
    swapped = Switchback(NONE, QUEUE_B1).service_spec(swap_routes=True)
    assert swapped.swap_routes and ServiceSpec.from_arguments(parse(swapped.arguments())) == swapped


def test_a_plain_spec_says_only_the_flags_every_version_of_the_lab_knows():
    # lab/serviceproc.py of commit 903928e (the batcher benchmark's "old") took exactly these.
    spec = ServiceSpec(Setting("queue", 32, 2.0))
    assert spec.arguments() == ["--batcher", "queue", "--max-batch", "32",
                                "--max-wait-ms", "2.0", "--max-records", "10000"]  # fmt: skip
    assert ServiceSpec() == ServiceSpec(NONE)


def test_added_work_or_swapped_routes_without_an_arm_b_are_refused_as_no_form_could_carry_them():
    with pytest.raises(ValueError, match="needs two arms"):
        ServiceSpec(NONE, added_work_us_b=50.0)
    with pytest.raises(ValueError, match="needs two arms"):
        ServiceSpec(NONE, swap_routes=True)


def test_a_setting_record_of_the_raw_files_gives_its_setting_back():
    for setting in SETTINGS:
        assert Setting.from_record(setting.as_dict()) == setting
    assert Setting.from_record({"batcher": "none"}) == NONE
    assert Setting.from_record({"batcher": "queue", "max_batch": 1}) == QUEUE_B1
