simulate(results, 32, 2, 1.25, per_call_us=300, per_row_us=10000)
