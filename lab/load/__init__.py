"""The load: seeded Poisson arrivals, the fast HTTP/1.1 client and its precise timer, the
open-loop and closed-loop clients (`python -m lab openloop`, `saturate`), and the cross-check
of S against wrk (`python -m lab crosscheck`)."""
