before = results["comparison"]["against"][-1]["campaign"]["name"]
part_a(campaign(before), size=32)
