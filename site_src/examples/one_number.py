first = results["design"]["rate_multiples"][0]
results["part_b"]["settings"]["none"]["rates"][first]["p99_ms"]
