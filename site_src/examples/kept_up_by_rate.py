cells = results["part_b"]["settings"]["none"]["rates"]
for rate in results["design"]["rate_multiples"]:
    if rate in cells:
        kept, rounds = cells[rate]["keeps_up_rounds"], len(cells[rate]["rounds"])
        print(f"{rate} × S: kept up in {kept} of {rounds} rounds")
