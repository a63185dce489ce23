#!/bin/bash
cd /work/main
for i in 1 2 3 4 5 6 7; do
 for s in 0.1 0.5; do
  .venv/bin/python -m lab.bench.switchback --cpu 1 --nice -10 --runs 0 --aa-runs 2 --added-work-runs 0 --independent-aa-runs 0 --saturation 692.4 --slice-s $s --seed $((i+10)) --out /tmp/sbslice/s$s-$i.json >> /tmp/sbslice/log 2>&1
 done
done
echo DONE >> /tmp/sbslice/log
