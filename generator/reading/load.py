"""Read one campaign folder (data/raw/<campaign>/) with clear, one-line errors.

Chooses the campaign (asked, else the newest complete `full`, else the newest complete,
else the newest), reads campaign.json, the campaign's description of itself (its rules,
guesses and names: generator/reading/description.py), schedule.json and failures.json, lists the run
files (a run the slow-run rule measured again has one per attempt), lists missing runs, and
reads each run file checking that the fields and columns its kind needs are there.
Used by `python -m generator build`; errors are DataError("<file>: <what is wrong>").
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from generator.reading.description import Description, DescriptionError, read_description
from generator.reading.description import field as description_field
from lab.rawformat import codec
from lab.rawformat.kinds import FOLDED_COLUMNS, KINDS

CAMPAIGN_FIELDS = ("campaign", "profile", "design")


class DataError(Exception):
    """Bad raw data; the message is one line naming the file and what is wrong."""


@dataclass
class Campaign:
    name: str
    path: Path
    info: dict
    schedule: list
    failures: dict
    chosen: str
    files: dict = field(default_factory=dict)  # run_id -> the file of the attempt used
    attempts: dict = field(default_factory=dict)  # run_id -> every attempt's file, in order
    description: Description | None = None  # read for the chosen campaign
    speed: dict | None = (
        None  # the slow-run rule's record (generator/arithmetic/attempts.py), once applied
    )

    @property
    def missing(self) -> list[dict]:
        """Scheduled runs without a file, in schedule order, with the reason if known."""
        return [entry for entry in self.schedule if entry["run_id"] not in self.files]

    @property
    def complete(self) -> bool:
        return not self.missing

    def scheduled(self, kind: str) -> list[dict]:
        return [entry for entry in self.schedule if entry["kind"] == kind]

    def reason(self, run_id: str) -> str:
        return self.failures.get(run_id, "no raw file (not run yet, or failed)")


def need(mapping: dict, dotted: str, where) -> object:
    """mapping['a']['b'] for 'a.b', or DataError naming `where` and the field (the
    description's own lookup, its error as a data error)."""
    try:
        return description_field(mapping, dotted, where)
    except DescriptionError as error:
        raise DataError(str(error)) from None


def read_json(path: Path):
    try:
        return json.loads(Path(path).read_text())
    except FileNotFoundError as error:
        raise DataError(f"{path}: file not found") from error
    except (OSError, ValueError) as error:
        raise DataError(f"{path}: not readable JSON ({error})") from error


def campaign_folders(raw_dir: Path) -> list[Path]:
    return sorted(p.parent for p in Path(raw_dir).glob("*/campaign.json"))


def read_failures(path: Path) -> dict:
    """failures.json as {run_id: reason}; accepts a list of records or a mapping."""
    if not path.exists():
        return {}
    value = read_json(path)
    if isinstance(value, dict):
        records = [
            {"run_id": k, **(v if isinstance(v, dict) else {"reason": v})} for k, v in value.items()
        ]
    else:
        records = value
    failures = {}
    for record in records:
        run_id = need(record, "run_id", path)
        failures[run_id] = str(record.get("reason") or record.get("error") or "failed")
    return failures


def open_campaign(folder: Path, chosen: str) -> Campaign:
    info = read_json(folder / "campaign.json")
    for name in CAMPAIGN_FIELDS:
        need(info, name, folder / "campaign.json")
    schedule = read_json(folder / "schedule.json")
    if not isinstance(schedule, list):
        raise DataError(f"{folder / 'schedule.json'}: expected a list of runs")
    for index, entry in enumerate(schedule):
        for name in ("run_id", "kind"):
            need(entry, name, f"{folder / 'schedule.json'} entry {index}")
    campaign = Campaign(
        name=folder.name,
        path=folder,
        info=info,
        schedule=schedule,
        failures=read_failures(folder / "failures.json"),
        chosen=chosen,
    )
    campaign.attempts = run_attempts(folder)
    # Attempt 1 until the slow-run rule says otherwise (generator/arithmetic/attempts.py).
    campaign.files = {run_id: paths[0] for run_id, paths in campaign.attempts.items()}
    return campaign


ATTEMPT_MARK = "@"  # runs/<run_id>@<n>.run.zip is attempt n (data/README.md)


def run_attempts(folder: Path) -> dict:
    """{run_id: [attempt 1's file, attempt 2's …]} of the run files; the attempts of a run
    must be numbered 1, 2, … with none left out."""
    numbered = {}
    for path in codec.run_files(folder):
        name = path.name[: -len(codec.SUFFIX)]
        run_id, mark, number = name.partition(ATTEMPT_MARK)
        if mark and (not number.isdigit() or int(number) < 2):
            raise DataError(f"{path}: an attempt file is named <run_id>@<2, 3 …>.run.zip")
        numbered.setdefault(run_id, {})[int(number) if mark else 1] = path
    attempts = {}
    for run_id, by_number in sorted(numbered.items()):
        if sorted(by_number) != list(range(1, len(by_number) + 1)):
            raise DataError(
                f"{folder / 'runs'}: the attempts of {run_id} are {sorted(by_number)}, "
                f"expected 1 to {len(by_number)} with none left out"
            )
        attempts[run_id] = [by_number[n] for n in sorted(by_number)]
    return attempts


def described(campaign: Campaign) -> Campaign:
    """The campaign with its description (rules, guesses, names) read and checked."""
    try:
        campaign.description = read_description(campaign.path, campaign.info)
    except DescriptionError as error:
        raise DataError(str(error)) from error
    return campaign


def choose_campaign(raw_dir: Path, name: str | None = None) -> Campaign:
    """The asked campaign, else the newest complete full one, else the newest complete one
    (so a campaign still running does not replace a finished one), else the newest; with
    its description read."""
    return described(find_campaign(Path(raw_dir), name))


def find_campaign(raw_dir: Path, name: str | None) -> Campaign:
    """The campaign choose_campaign describes: asked, else the newest complete full one …"""
    if name:
        folder = raw_dir / name
        if not (folder / "campaign.json").exists():
            raise DataError(f"{folder / 'campaign.json'}: file not found (no such campaign)")
        return open_campaign(folder, "asked")
    campaigns = opened_campaigns(raw_dir, "newest")
    if not campaigns:
        raise DataError(f"{raw_dir}: no campaign folder (none holds a campaign.json)")
    complete = [c for c in campaigns if c.complete]
    full = [c for c in complete if is_full(c)]
    for choice, label in ((full, "newest complete full"), (complete, "newest complete")):
        if choice:
            choice[-1].chosen = label
            return choice[-1]
    return campaigns[-1]  # a campaign still running, when no campaign is complete


def opened_campaigns(raw_dir: Path, chosen: str) -> list[Campaign]:
    """Every campaign under raw_dir, oldest first (by started_at, then name)."""
    campaigns = [open_campaign(folder, chosen) for folder in campaign_folders(Path(raw_dir))]
    return sorted(campaigns, key=lambda c: (str(c.info.get("started_at", "")), c.name))


# The profiles that run the whole design (lab/design.py): `full`, the first two full
# campaigns', and `full3`, the third's (the same grid with more, shorter rounds under the
# interval rule, and switchback runs). A complete campaign of either is a full campaign: the
# newest is the site's main one, and the others are compared with it cell by cell.
FULL_PROFILES = ("full", "full3")


def is_full(campaign: Campaign) -> bool:
    return campaign.complete and campaign.info["profile"] in FULL_PROFILES


def other_full_campaigns(raw_dir: Path, name: str) -> list[Campaign]:
    """The complete full campaigns other than `name`, oldest first, each described: the
    campaigns the main one is compared with (generator/arithmetic/compare.py)."""
    campaigns = opened_campaigns(raw_dir, "compared")
    return [described(c) for c in campaigns if c.name != name and is_full(c)]


def read_meta(path: Path) -> dict:
    """Only the meta of a run file (for kinds not published yet: their quiet records)."""
    try:
        return codec.read_meta(path)
    except codec.RawFileError as error:
        raise DataError(str(error)) from error


def read_run(path: Path, kind: str | None = None) -> tuple[dict, dict]:
    """(meta, columns) of one run file, checked for the fields and columns of its kind."""
    try:
        meta, columns = codec.read_run(path)
    except codec.RawFileError as error:
        raise DataError(str(error)) from error
    except Exception as error:  # a truncated zip fails in many ways; name the file
        raise DataError(f"{path}: cannot read ({type(error).__name__}: {error})") from error
    actual = need(meta, "kind", path)
    if kind is not None and actual != kind:
        raise DataError(f"{path}: field 'kind' is {actual!r}, the schedule says {kind!r}")
    known = KINDS.get(actual)  # its meta fields and column groups (lab/rawformat/kinds.py)
    for name in known.meta if known else ():
        need(meta, name, path)
    for group in known.columns if known else ():
        check_columns(path, columns, unfolded(group, meta, columns))
    return meta, columns


def unfolded(group: tuple, meta: dict, columns: dict) -> tuple:
    """The group's columns a run must hold: without those a format-4 run keeps as one figure
    in its meta instead (lab/rawformat/kinds.py FOLDED_COLUMNS)."""
    return tuple(name for name in group
                 if name in columns or FOLDED_COLUMNS.get(name) not in meta)  # fmt: skip


def check_columns(path: Path, columns: dict, group: tuple) -> None:
    for name in group:
        if name not in columns:
            raise DataError(f"{path}: missing column '{name}'")
    lengths = {name: len(columns[name]) for name in group}
    if len(set(lengths.values())) > 1:
        raise DataError(f"{path}: columns of unequal length {lengths}")
