"""The machine: what it is (fingerprint), what it is doing (CPU times, the quiet check, the
core watch) and how measured processes are started on it (pinned, one thread each)."""
