"""The common end of the load clients' commands (`python -m lab openloop`, `saturate`,
`partc-client`): measure, then write the run file and print a summary, or print one FAILED
line and exit 1 when the exchange broke (nothing written).
"""

import sys
from collections.abc import Callable

from lab.load.httpclient import BadResponse, PeerClosed
from lab.rawformat import codec


def run_client(command: str, measure: Callable, out, meta: dict, summary: Callable) -> int:
    """The tail of a load client's CLI: measure() gives (columns, stats); a broken exchange
    is one FAILED line on stderr and exit 1 (nothing written), else `out` is written with
    the stats in its metadata and summary(columns, stats) is printed."""
    try:
        columns, stats = measure()
    except (PeerClosed, BadResponse, OSError) as error:
        print(f"lab {command}: FAILED: {error}", file=sys.stderr)
        return 1
    codec.write_run(out, {**meta, "stats": stats}, columns)
    print(summary(columns, stats))
    return 0
