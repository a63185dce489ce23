"""The parts of the lesson, each also runnable on its own: Part A (the model alone,
`python -m lab predict`), the bit check (`python -m lab bits`) and Part C, the batch route
(`python -m lab partc`, and its pinned client `python -m lab partc-client`)."""
