"""The design's dated notes: why each rule and number of lab/design.py is what it is, with the
evidence seen when it was written, before the campaign that first used it. Nothing to import:
read it. Names in capitals are lab/design.py's (a note's "above" meant there, where the notes
were first written, at the end of the design). Never edited; a new note goes at the end, dated.
"""

# --- 2026-11-30, before any campaign that uses it: the speed probe and the slow-run rule ----
# (issue 13). The quiet rule sees this VM's own processes and the host's steal, not the speed
# of the physical core under the VM, and that speed moves: in full-20261129 round 0's `none`
# at 0.5 × S spent 914 µs of service CPU per answer against 718-765 µs in the other rounds,
# recorded as quiet. So every timed run now has a speed probe (lab/campaign/probe.py: a fixed
# pure-Python loop, the model's one-row call, a 32 MiB copy; its `slowness` is the geometric
# mean of the parts' ratios to the campaign's reference) right before and right after its
# timed part, and this rule decides which runs are measured again.
#
# Reference: PROFILE.probe_calibration probes at the campaign's start, each after a quiet
# check; per part, their median. Recorded in campaign.json (`speed_probe`) and reused when
# the campaign is resumed, never measured again.
#
# The rule: a run attempt is SLOW when its probe before or its probe after has a slowness
# above 1 + SLOW_RUN_THRESHOLD. A slow attempt of a run of SLOW_RUN_KINDS is run again later,
# at the end of its block (the Part A block, the S block, each Part B round, the Part C
# block), with at least one other run or a pause of PROFILE.slow_pause_s in between, until an
# attempt is not slow or the run has had SLOW_RUN_MAX_ATTEMPTS attempts, and only while the
# campaign's re-runs stay within ceil(PROFILE.slow_budget_share × scheduled runs). Every
# attempt is kept. The attempt used is the first that was not slow; when none was, the one
# whose slower probe was the least slow (earliest on a tie), MARKED as never passing. The
# rule reads the probes only, never a run's results. The bit check is probed too but not
# re-run: it times nothing.
#
# Why 0.15. Measured on this 2-core VM on 2026-11-30 with `python -m lab probe --cpu 1`
# (every probe, with the load, in data/bench/speed_probe_noise.json). The machine was never
# quiet that day (other work kept the 1-minute load at 2-11), so the probe's own noise was
# measured with the probe at real-time priority (`chrt -f 50`), which keeps the other
# runnable processes off the core while it runs (what the quiet check is for), not the host:
# 80 probes, 2 s apart: slowness against their median 0.966-1.08 for 77 of them (p10 0.98,
# p90 1.03, p95 1.05), and 3 at 1.42-1.62 with the loop and the model call both about 1.8×
# slower and the copy not: the host's weather the probe is for. With a busy loop on the other
# core: the same (p90 1.03; 2 of 60 above 1.15). At normal priority on the busy machine (load
# 6.6-9.4): 0.73-2.80, p90 1.38, 33 of 80 above 1.15 (the loop's median 8.1 ms against 4.1 ms
# at real-time priority: the core shared with the run queue); with a busy loop on the
# measurement core 22 of 60 probes were 1.5-5.4× slower. So a probe with the core to itself
# stays within 8% of the reference, and 0.15 is about twice that: a false alarm is rare, and
# a core 15% slower, less than the 19-27% that moved round 0's `none` and the S runs of
# full-20261129, is caught. The geometric mean dilutes a slowdown of one part alone (the
# model call 1.5× slower reads 1.14): the rule is for a slower core, not a slower library.
# The budget: the full profile has 611 runs of about 12 s (2 hours); a quarter of them again
# is about 153 re-runs, 30 more minutes: the campaign stays within about 2.5 hours.
#
# The data budget (added 2026-12-01, after full-20261130 came to 41.2 MiB with 143 re-runs):
# a campaign's folder stays under CAMPAIGN_BYTES_BUDGET (data/README.md), so a re-run is made
# only while the folder, its latest attempt once more, and RUN_BYTES for every scheduled run
# not yet measured, fit. RUN_BYTES is a little above the mean file of each kind in the two
# full campaigns (Part B 56 KB, Part C 187 KB, Part A 48 KB, S 25 KB, bits 1 KB);
# ARRIVALS_BYTES covers the shared arrival files and the campaign's JSON files.

# --- 2026-12-01: the switchback run kind (issue 28, items 1, 2 and 5), before any timed run --
# The lab can now measure a `switchback` run (lab/campaign/executors/switchback.py): one fresh
# service serving two settings at once (lab/service/switchback.py), one open-loop client, the
# window cut into SWITCHBACK_SLICE_S slices alternating between the arms from a first arm
# drawn per run. An A/A run serves the same setting on both arms. The campaign profiles above
# schedule none yet (`switchbacks` is empty): the rule that judges them (item 3) is to be
# written here, dated, before a campaign uses them. Switchback runs are not re-run by the
# slow-run rule (not in SLOW_RUN_KINDS; their probes are recorded): a slow stretch of the host
# falls on both arms of a run alike, and item 6 reconsiders the rule on evidence. The
# known-effect runs' added work is a test-only option of the service, never in the design's
# comparisons. RUN_BYTES["switchback"] is Part B's 60 KB, about three times a Part B run at
# 0.5 × S in full-20261130 (18-24 KB): the `arm` column, one value per slice, adds little.


# --- 2026-12-01, before any timed run under it: the interval rule (issue 28, item 3) -----------
# Why a new rule. full-20261130's raw files show that about 95% of the variance of a run's p50
# at 0.5 × S lies between runs (log-SD 0.155), so pairing by round cancels little: queue B=1
# − none had a per-round SD of 311 µs, and the all-rounds-agree rule had about 9% power for
# its +88 µs (6% by chance alone). Inside one run the level holds (alternating 0.5 s slices
# differ by 0.044 in log p50), which switchback runs use.
#
# The rule, for new campaigns (rules.told_apart in campaign.json; the generator judges each
# campaign by the rule it froze, the first two by ROUNDS_RULE). For one comparison of B with
# A: per paired unit (a switchback run; in Part B's grid a round, both on the same arrivals)
# d = ln(statistic of B) − ln(statistic of A), for p50, p99, the server-side time (the median
# of ready + queued + model) and, in the grid, throughput. Over the units: the Hodges–Lehmann
# estimate (the median of the Walsh averages (d_i + d_j)/2, i ≤ j) and the exact Wilcoxon
# signed-rank confidence interval (generator/intervals.py). TOLD APART when the
# TOLD_APART_CONFIDENCE (95%) interval excludes 0; THE SAME WITHIN ±δ when the
# SAME_WITHIN_CONFIDENCE (90%) interval lies inside [−δ, +δ] (two one-sided tests at 5%);
# otherwise NOT RESOLVED, always printed with the smallest difference the design could have
# resolved (the 95% interval's half-width). Shown in µs at A's level, a·(exp(d) − 1), a the
# median over the units of A's statistic. A comparison with a unit whose statistic is not
# finite and positive on either side (a percentile on a never-answered request, no answers)
# has no interval: not resolved. The exact interval needs n ≥ 6 units to reach 95% and n ≥ 5
# to reach 90%: the grid's 5 rounds can say "the same within ±δ" but never "told apart"
# (its verdicts say so); a campaign that wants the grid to tell settings apart needs 6 or
# more rounds.
#
# δ, in log units, one per statistic (TOLD_APART_DELTA), chosen from full-20261130 before any
# switchback run: cutting each of its 85 Part B runs at 0.5 × S into alternating 0.5 s slices
# and comparing the two halves of the same setting (an A/A inside one run, as a switchback
# run's) gives a per-run SD of d of 0.030 for p50, 0.213 for p99 and 0.021 for the server
# time. With 40 runs the 95% interval's half-width is about 0.32 × that SD (1.96 × √(π/3) /
# √40): about 0.010, 0.068 and 0.007. δ must be well above that, or "the same" could never be
# said, and small enough to mean "no difference that matters to the lesson":
# - p50 and the server time: ln(1.05) (5%): at none's p50 of about 1.6 ms, 80 µs, about the
#   smallest effect the lesson discusses (queue B=1's cost, the W = 1 ms overshoot, the 50 µs
#   added-work check) and five times the 40-run half-width;
# - p99: ln(1.25) (25%): one p99 rests on the slowest 1% of one arm's requests (about 30 of
#   3,000 per run), about one per-run SD; 5% would be below the interval's own half-width
#   (0.068) and never reachable, and the lesson's tail effects are factors (B=32 W=0 cut
#   none's p99 2.1× in the original box);
# - throughput (the grid only): ln(1.05), as the keeps-up rule's 5%: settings that both keep
#   up answer the same arrivals and differ by well under that.

# --- 2026-12-01, before the third full campaign: the slow-run rule on evidence (issue 28) -----
# full-20261130's 143 re-runs (Part B 132, Part C 8, Part A 3) took 38 of its 176 min. Part B:
# 87 runs use a later attempt, 63 a passing one; 31 never passed (00:30-01:04 79% of attempts
# probed slow). Replaced runs spent 3.5% more service CPU per answer than their cell's median,
# passing re-runs 2.0%, never-passing ones 19% -> 24%. Cell medians did not move (p90 |change|
# 0.044 log for p50); kept-up cells' between-round log-SD of p50 stayed 0.073; 19 of 588 verdicts
# flipped (12 gained, 7 lost), no cost verdict. The probe explains 43% of a run's CPU per answer
# (r 0.65) and missed a 2.3x-slow run; ready_us p50 against its rate's median (r 0.85, precision
# 0.82, recall 0.90) and client CPU per request (r 0.81) read the run's own seconds. Part A's
# one-row call is 475.2 us with or without re-runs; Part C's moved 18%, no better. Decision: NO
# re-runs for any kind (Part B, switchback, Part A, S, Part C; bits as before). One probe, after
# the window, and ready_us p50 and client CPU per request against their rate's median are kept
# in every run and shown as flags, never used to pick or drop a run (that would select results);
# the interval over 8 paired rounds or 40 switchback runs carries the host's noise. Saves ~38 min.
# It takes effect in the next profile written (the third full campaign's, issue 29); the first
# two campaigns keep SLOW_RUN_KINDS above, the rule they ran under, as their campaign.json froze
# it. The figures: /work/analysis (c_slow_rule.py over full-20261130's raw files).

# --- 2026-12-02, before the second switchback benchmark: slices of 0.1 s, and twin slices ----
# On this host today the A/A control's per-run SD of d for the p50 was 0.118 (40 runs,
# 2026-12-02 00:05-00:30, 0.5 s slices), four times the 0.030 that full-20261130's runs gave
# when cut the same way. Inside one run the latency of 0.1 s stretches went from 1.5 to 20 ms
# and back (stalls of the host of tens of milliseconds), so a stall falling on one arm's slice
# decided a run's d. Two cuts were tried side by side on the measurement core (pilots kept in
# data/bench/pilots/2026-12-02-slices/, S = 692/s, A/A none vs none at 0.5 × S, 8 s windows):
# - twin slices (each B slice repeating the arrivals of the A slice before it), 12 runs against
#   12 in independent slices, interleaved: SD of the p50's d 0.136 against 0.133: the traffic
#   a slice meets is not where the wobble comes from;
# - slices of 0.1 s against 0.5 s (twin), 14 runs each, alternating: SD 0.075 against 0.112 for
#   the p50, 0.22 against 0.58 for the p99, 0.013 against 0.023 for the server time: a stall
#   now spans both arms' slices more often. At 0.5 × S a slice of 0.1 s still holds 30-60
#   requests and the service's busy periods last milliseconds, so little of one arm's queue
#   spills into the other's slice.
# Decision: SWITCHBACK_SLICE_S = 0.1 for every switchback run from now on (the benchmark and
# the full3 profile). Twin slices stay an option of a pair (`twin_slices`), measured again in
# the benchmark beside independent slices; the rule (the interval over runs) is unchanged.
#
# After the second switchback benchmark (2026-12-02 05:59-06:31, 180 runs, S = 684/s, data/bench/
# switchback.json): in 0.1 s slices the twin A/A control's per-run SD of the p50's d was 0.050
# (40 runs) against 0.074 for the independent one beside it (20 runs, interleaved), and 0.016
# against 0.019 for the server time. So the third campaign's switchback pairs run in twin
# slices (SWITCHBACK_PAIRS), as the benchmark's did.

# --- 2026-12-02, before the third full campaign: its profile `full3` (issue 29, items 1-2) ----
# Written after the second switchback benchmark (data/bench/switchback.json, 05:59-06:31, 180
# runs in twin slices of 0.1 s, S = 684/s) had been read: its numbers are below and in the
# guesses of this date (lab/guesses.py, GUESSES_20261202, G27-G42).
#
# The first two full campaigns keep the profile `full` they ran (their schedules and frozen
# descriptions are its); the third runs FULL3, a profile of its own, and QUICK3 is FULL3's
# per-run machinery on a short campaign (3 settings × 2 rates × 2 rounds, 2 runs of each
# switchback pair, Part A and Part C at full size).
#
# The grid: the same 17 SETTINGS × 7 RATE_MULTIPLES, R = 8 paired rounds of 2 s windows. Run
# noise does not depend on the window (a run's log-SD of p50 at 0.5 × S against its cell:
# 0.160 / 0.163 / 0.154 / 0.158 for 1 / 2 / 4 / 8 s in full-20261130). The exact Wilcoxon 95%
# interval can exclude 0 only from 6 pairs (all of one sign); B=32 W=0's p99 cut of none at
# 0.5 × S is 1.5× (median over rounds) to 1.6-1.7× (mean) at 2 s, and R = 8 resolves a 1.6×
# cut with 75% power at the pooled model SD (0.41 log) and 99% at this pair's own (0.25);
# R = 9 gives 81% but costs 6 more minutes. The smallest p50 difference the grid resolves at
# R = 8 is about ±300 µs: queue B=1's cost (+88 µs in full-20261130) is the switchback
# block's to resolve, not the grid's.
#
# The switchback block (issue 28's machinery): none vs queue B=1, B=32 W=0 vs B=32 W=1 and the
# A/A control none vs none, SWITCHBACK_RUNS (40) runs each at 0.5 × S, in twin slices of
# SWITCHBACK_SLICE_S = 0.1 s (the note above: the A/A p50's per-run SD of d 0.075 at 0.1 s
# against 0.112 at 0.5 s in the pilots; in the benchmark, twin 0.050 against 0.074
# independent), 5 s windows; run by index after Part B, the pairs shuffled inside each index,
# each pair's first arm and route swap counterbalanced (over every 4 runs each first arm twice
# and each route on each arm twice, in a seeded order, lab/campaign/schedule.py). In the
# benchmark (8 s windows, a core about 1.7× slower than full-20261130's: none's p50 4.2 ms):
# queue B=1's p50 +113 µs, 95% interval [52, 177], told apart (per-run SD of d 0.045); B=32
# W=1's server time +686 µs [647, 728] over W=0's 2,185 µs, told apart; the W = 1 ms overshoot
# 75.5 µs [73.5, 77.0]; the A/A p50 −3 µs [−72, 76], the same within ±5% (SD 0.050), its
# server time SD 0.016. The window is 5 s, not 8 s, for the bytes (below): if a run's d is
# slice noise its SD grows by √(8/5) = 1.26, to about 0.063 for the A/A p50, and the 40-run
# 95% interval's half-width (about 0.32 × the SD) to about 0.020 in log units: 32 µs at a
# quiet host's p50 of 1.6 ms, 85 µs at today's 4.2 ms, still under queue B=1's cost.
#
# The rule: TOLD_APART_RULE (the 2026-12-01 note) with TOLD_APART_DELTA, for the grid's
# paired rounds and the switchback runs alike; every cost verdict is printed with its
# interval and the smallest difference the design could resolve. The generator reads a
# campaign's switchback runs with the benchmark's arithmetic (generator/arithmetic/
# switchback_runs.py), and names the figures the guesses use: switchback_b1_p50_overhead_us,
# switchback_w1_server_cost_us, switchback_w1_overshoot_us (each with _low95_us, _high95_us
# and, for the first two, _told_apart), switchback_aa_p50_same, switchback_aa_p50_sd_d,
# campaign_wall_minutes and campaign_raw_mib.
#
# Time (issue 29: at most 100 minutes). No re-runs (the 2026-12-01 note on evidence): `reruns`
# False, the slow-run rule judges no kind; one speed probe, after the window (`probes`); the
# quiet rule judged on each run's own core watch (`quiet_mode` "watch": recorded, never waited
# for; the check overlapped with the service's start, "startup", was built and measured: it
# costs max(0.5 s − the service's 0.19 s start, 0) = 0.31 s a run, 5.5 minutes, and in
# full-20261130 the check before a run retried 8 of 753 times and never failed); the load
# snapshot after a run spans reading the batches and stopping the service instead of its own
# 0.5 s sleep. Part A and the bit check start no service and keep a 0.5 s check before.
#
# Bytes (at most 18 MiB, so data/ stays under 100 MiB). The projection before these cuts
# said 19.7 MiB at S = 1,177 and 24.0 at S = 1,510, but it priced a 2 s run's columns at an
# 8 s run's bytes per request; measured again (`python -m lab.campaign.projection
# --column-bytes`: full-20261130's round 0 cut to 2 s and stored again by the codec), a 2 s
# run takes 5.70 bytes per request at 0.5 × S against 5.15 (each column's compressed stream
# has its own start), so the choices as they stood came to 21.3 MiB at S = 1,177 and 26.0 at
# S = 1,510. The cuts, in this order (raw format 4, data/README.md):
# - lossless: a run's per-request send lag is folded into its p99 in meta (send_lag_column
#   False; the p99 is all the generator and the report read of it, now exact instead of 8
#   bits; the column was 17-19% of the columns), and a run names the machine fingerprint and
#   model files' sha256 it shares with campaign.json instead of repeating them
#   (machine_per_run False, about 0.5 KB a file): 18.0 and 21.9 MiB;
# - Part B's per-request durations (latency, ready, queued, model) at 6 significant bits
#   (part_b_request_bits 6: each within 1/64, 1.6%, exact below 64 µs; 19-22% of the columns):
#   the grid resolves nothing that fine (its smallest resolvable p50 difference is about
#   ±300 µs, 18% of none's p50; its p99 verdicts are factors; a run's log-SD is 0.155), while
#   the fine costs are the switchback runs', which keep 8 bits, as do the per-batch first
#   waits (the W overshoot): 15.7 and 19.0 MiB;
# - switchback windows of 5 s instead of 8 (above): 14.9 and 18.0 MiB, and 6 minutes less.
# Projected (`lab run --profile full3 --projection-only`, lab/campaign/projection.py):
# 83 minutes and 14.9 MiB for 1,088 runs at S = 1,177 (Part B 952 runs 62.8 min 11.0 MiB,
# switchback 120 runs 13.5 min 1.9 MiB, Part A, bits, S and Part C 6.9 min 1.2 MiB, the
# calibration 0.1 min, the shared arrivals and the campaign's own files the rest); at
# S = 1,510, 18.0 MiB (17.995: no margin). A faster host gives more requests and more bytes,
# so the runner checks again once S is measured: over the budget at the measured S it stops
# before the first Part B run, every file kept, unless started with
# --over-budget (lab/campaign/runner.py). Per-run seconds: a quiet host's steps from
# full-20261130 (service start 0.19, client start 1.01, probe 0.08, 0.48 between runs) and the
# new steps measured on quick3 (2026-12-02, on a host loaded to 10-17 by other work, where
# every step took 4-6× its quiet-host time: nothing heavy may run beside the campaign).
# Checked end to end on a quick3 campaign with these choices (2026-12-02 06:45-07:07, a host
# loaded by other work, S = 574/s): every run in format 4, the fixed part of a Part B file
# 2,387 bytes against the projection's 2,398, a switchback run's columns 4.73 bytes per
# request against 4.73; the build read its switchback runs and footprint and the report
# recomputed all 2,823 published numbers.
#
# Signals kept in every run as flags (FLAG_SIGNALS), never used to pick or drop a run: the
# probe after's slowness, ready_us's median, the client's CPU per request, others_share.
