"""Part C, the batch route: N customers scored through the real service, as a loop of single
`/predict` calls and as `/predict_batch` calls in chunks; where one request's time goes; an
example exchange checked for alignment. `python -m lab partc` runs it on its own
(command.py); the pinned client of one run is `python -m lab partc-client` (client.py)."""
