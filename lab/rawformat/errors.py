"""The one error of the raw format: a raw file that cannot be read (`codec.RawFileError`).
Kept apart from the codec so that the lab's command line can name it without numpy."""


class RawFileError(Exception):
    """A raw file that cannot be read; the message names the file and what is wrong."""
