"""results.json against its schema, generator/results.schema.json (JSON Schema draft
2020-12): the keys and types of its top level and main sections, written once instead of as
prose in generator/SCHEMA.md (which keeps what the values mean). The fixture campaign's build
in the fast tier; every committed full campaign's build in the fulldata tier (the run's one
build, tests/support/sitebuild.py)."""

import copy
import json
from pathlib import Path

import jsonschema_rs
import pytest

from tests.support.golden import build_fixture

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "generator" / "results.schema.json"
RESULTS = Path("assets") / "data" / "results.json"


@pytest.fixture(scope="module")
def schema() -> dict:
    return json.loads(SCHEMA.read_text())


@pytest.fixture(scope="module")
def validator(schema):
    return jsonschema_rs.Draft202012Validator(schema)


@pytest.fixture(scope="module")
def fixture_results(tmp_path_factory) -> dict:
    """The fixture campaign built as tests/test_generator.py builds it (its golden copy)."""
    out = tmp_path_factory.mktemp("schema-build")
    build_fixture(out)
    return json.loads((out / RESULTS).read_text())


def problems(validator, results: dict) -> list[str]:
    return [
        f"{'/'.join(map(str, e.instance_path))}: {e.message}"
        for e in validator.iter_errors(results)
    ]


def test_the_schema_is_draft_2020_12(schema):
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert jsonschema_rs.meta.is_valid(schema)


def test_the_fixture_campaigns_results_meet_the_schema(validator, fixture_results):
    assert problems(validator, fixture_results) == []


def test_every_committed_full_campaigns_results_meet_the_schema(validator, full_campaign_builds):
    assert full_campaign_builds, "no committed full campaign was built"
    found = {
        name: problems(validator, json.loads(Path(path).read_text()))
        for name, path in full_campaign_builds.items()
    }
    assert found == {name: [] for name in found}


def without(results: dict, *path: str) -> dict:
    changed = copy.deepcopy(results)
    *parents, last = path
    inner = changed
    for key in parents:
        inner = inner[key]
    del inner[last]
    return changed


@pytest.mark.parametrize(
    "path",
    [
        ("campaign",),
        ("schema_version",),
        ("quiet", "runs"),
        ("campaign", "name"),
        ("design", "rounds"),
        ("simulation", "seeds"),
    ],  # fmt: skip
)
def test_a_required_key_removed_is_refused(validator, fixture_results, path):
    found = problems(validator, without(fixture_results, *path))
    assert found, f"{'.'.join(path)} removed, yet the schema accepts the results"
    assert any(path[0] in line for line in found), found  # the error names where


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r.update(unknown_section={}),  # a top-level key the schema does not name
        lambda r: r["quiet"].update(runs="12"),  # a count as text
        lambda r: r["campaign"].update(chosen="latest"),  # not one of the choices
        lambda r: r["figures"][next(iter(r["figures"]))].pop("unit"),  # a figure without unit
        lambda r: r.update(schema_version=r["schema_version"] + 1),  # a version not described
    ],
)
def test_a_changed_structure_is_refused(validator, fixture_results, change):
    changed = copy.deepcopy(fixture_results)
    change(changed)
    assert problems(validator, changed)
