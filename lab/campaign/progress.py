"""Progress of a long campaign: a bar with ETA on a terminal, and one plain line per run
(for logs and serial consoles, which cannot show a redrawn bar). Used by the runner."""

import sys
import time


class Progress:
    def __init__(self, total: int, already_done: int, echo=print, stream=sys.stderr):
        self.total, self.done_count = total, already_done
        self.echo, self.stream = echo, stream
        self.started = time.monotonic()
        self.finished_here = 0
        self.tty = stream.isatty()
        self.echo(
            f"lab run: {already_done} of {total} runs already done; {total - already_done} to go"
        )

    def eta_s(self) -> float | None:
        if not self.finished_here:
            return None
        per_run = (time.monotonic() - self.started) / self.finished_here
        return per_run * (self.total - self.done_count)

    def note(self, line: str) -> None:
        self.echo(f"lab run: {line}")

    def done(self, run_id: str, seconds: float, ok: bool, reason: str = "") -> None:
        self.done_count += 1
        self.finished_here += 1
        eta = self.eta_s()
        eta_text = f"ETA {eta / 60:.0f} min" if eta is not None else "ETA ?"
        status = "ok" if ok else f"FAILED ({reason})"
        self.echo(
            f"lab run: [{self.done_count}/{self.total}] {run_id} {status} "
            f"in {seconds:.1f} s; {eta_text}"
        )
        if self.tty:
            width = 30
            filled = int(width * self.done_count / max(self.total, 1))
            bar = "#" * filled + "." * (width - filled)
            self.stream.write(f"\r[{bar}] {self.done_count}/{self.total} {eta_text}   ")
            self.stream.flush()

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\n")
        minutes = (time.monotonic() - self.started) / 60
        self.echo(f"lab run: finished {self.finished_here} runs in {minutes:.1f} min")
