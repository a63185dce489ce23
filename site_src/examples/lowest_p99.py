top = results["design"]["rate_multiples"][-1]
cells = {
    name: s["rates"][top]["p99_ms"]
    for name, s in results["part_b"]["settings"].items()
    if top in s["rates"]
}
min((v, k) for k, v in cells.items() if v is not None)
