"""The failures a user can cause and fix: each prints as one line and exits 2 (`lab.cli`).

Everything else is a bug and keeps its traceback. (A raw file that cannot be read raises
`lab.rawformat.codec.RawFileError`, which the command line treats the same way; it lives
with the codec so that the generator can use the codec without the rest of the lab.)
"""


class LabError(Exception):
    """A problem the user can fix; the message says what was wrong and what to do."""


class ShopDataError(LabError):
    """The shop log could not be fetched or failed its checksum."""


class MissingArtifacts(LabError):
    """`python -m lab data` has not built the model, the store and the request list yet."""


class CampaignError(LabError):
    """The campaign cannot go on (bad name, another machine, too many failures in a row)."""


class ServiceError(LabError):
    """The prediction service could not be started, or answered a control call badly."""
