simulate(results, 32, 2, 2, per_call_us=2000, per_row_us=100)
