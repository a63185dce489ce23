"""The dated guesses: predictions with numbers for this machine, each written before the
campaign it is judged on, never edited after its results. A campaign freezes `GUESSES` (the
current ones) into its campaign.json (lab/campaign/description.py), so editing this file
never changes an earlier campaign's verdicts; a new set goes at the end, dated.
"""

# Guesses: predictions with numbers for this machine, written 2026-11-29 before any campaign
# (quick or full) had run. Only development trials of Part A had been seen (about 300-370 µs
# per call at 1 row, about 2,000 µs at 1,024 rows, with other work on the machine). Each
# names a figure of generator/figures.py. Never edited after the results; later notes go
# below, dated.
_DATE = "2026-11-29"


def _guess(ident, text, figure, compare, unit, date=_DATE, **bounds) -> dict:
    return {
        "id": ident,
        "date": date,
        "text": text,
        "figure": figure,
        "compare": compare,
        "unit": unit,
        **bounds,
    }


GUESSES_20261129 = (
    _guess(
        "G1",
        "One row alone costs 250 to 450 µs per predict_proba call.",
        "part_a_per_call_us_1",
        "between",
        "µs",
        low=250,
        high=450,
    ),
    _guess(
        "G2",
        "A call on 1,024 rows costs 4 to 8 times a call on one row.",
        "part_a_call_ratio_1024_vs_1",
        "between",
        "×",
        low=4,
        high=8,
    ),
    _guess(
        "G3",
        "Per row, 1,024 rows together are at least 100 times cheaper than one alone.",
        "part_a_per_row_saving_1024",
        ">=",
        "×",
        value=100,
    ),
    _guess(
        "G4",
        "S, with no batching and the client on the same core, is 800 to 1,600 answers per second.",
        "S",
        "between",
        "answers/s",
        low=800,
        high=1600,
    ),
    _guess(
        "G5",
        "No batching keeps up at 0.8 × S and at no higher rate.",
        "none_highest_rate_kept_up",
        "between",
        "× S",
        low=0.8,
        high=0.8,
    ),
    _guess(
        "G6",
        "Queue B=1 costs 20 to 150 µs more than none at the median at 0.5 × S.",
        "queue_b1_p50_overhead_us_at_0_5",
        "between",
        "µs",
        low=20,
        high=150,
    ),
    _guess(
        "G7",
        "A 1 ms timed wait overshoots by 20 to 200 µs.",
        "wait_overshoot_us_w1",
        "between",
        "µs",
        low=20,
        high=200,
    ),
    _guess(
        "G8",
        "At 2.5 × S the best batched setting answers at least twice as many "
        "requests per second as none.",
        "best_batched_gain_at_top_rate",
        ">=",
        "×",
        value=2.0,
    ),
    _guess(
        "G9",
        "At 0.5 × S, B=32 W=0 cuts none's p99 by a factor of at least 1.5.",
        "b32_w0_p99_cut_at_0_5",
        ">=",
        "×",
        value=1.5,
    ),
    _guess(
        "G10",
        "B=32 W=0 keeps up at every rate up to 2.5 × S.",
        "b32_w0_highest_rate_kept_up",
        ">=",
        "× S",
        value=2.5,
    ),
    _guess(
        "G11",
        "At 0.5 × S, B=32 W=2 has a p50 of 2.0 to 3.5 ms: the wait shows up in the median.",
        "b32_w2_p50_ms_at_0_5",
        "between",
        "ms",
        low=2.0,
        high=3.5,
    ),
    _guess(
        "G12",
        "At 0.5 × S, B=32 W=0 scores 1.0 to 1.6 rows per model call on average.",
        "b32_w0_mean_batch_at_0_5",
        "between",
        "rows",
        low=1.0,
        high=1.6,
    ),
    _guess(
        "G13",
        "Inside the handler with no batching, the model call takes 250 to 450 µs.",
        "none_model_us_at_0_5",
        "between",
        "µs",
        low=250,
        high=450,
    ),
)

# --- 2026-11-30: guesses for the second full campaign (issue 15), written before it ran -----
# Seen by then: full-20261129 (old machinery; its figures are quoted in each text below), the
# quick campaign of 2026-11-29, smoke runs of the new machinery side by side with the old
# (queue B=1's p50 overhead at 0.5 × S 2,084 → 451 and 97 → −4 µs; the W = 1 ms overshoot
# about 250 → 56 µs; best batched ÷ none at 2.5 × S 2.58 → 2.86 and 2.54 → 2.54; 187,503
# answers compared, none differing) and the speed probe's noise (above). They say what the
# new machinery (no task or event per batch, a timerfd for W, a one-thread client timed by the
# kernel) and the slow-run rule should change; the model and the machine are the same.
_DATE_2 = "2026-11-30"
GUESSES_20261130 = (
    _guess(
        "G14",
        "One row alone still costs 250 to 450 µs per predict_proba call (was 297 µs): the "
        "model did not change.",
        "part_a_per_call_us_1",
        "between",
        "µs",
        date=_DATE_2,
        low=250,
        high=450,
    ),
    _guess(
        "G15",
        "S rises to 1,350 to 1,900 answers per second (was 1,510): the handler is cheaper.",
        "S",
        "between",
        "answers/s",
        date=_DATE_2,
        low=1350,
        high=1900,
    ),
    _guess(
        "G16",
        "No batching still keeps up at 0.8 × S and at no higher rate.",
        "none_highest_rate_kept_up",
        "between",
        "× S",
        date=_DATE_2,
        low=0.8,
        high=0.8,
    ),
    _guess(
        "G17",
        "Queue B=1 costs −100 to 150 µs more than none at the median at 0.5 × S (was 2,336 µs): "
        "a lone request is scored without a task, an event or a timer.",
        "queue_b1_p50_overhead_us_at_0_5",
        "between",
        "µs",
        date=_DATE_2,
        low=-100,
        high=150,
    ),
    _guess(
        "G18",
        "A 1 ms timed wait overshoots by 20 to 100 µs (was 176 µs): a timerfd, not the loop's "
        "millisecond timer.",
        "wait_overshoot_us_w1",
        "between",
        "µs",
        date=_DATE_2,
        low=20,
        high=100,
    ),
    _guess(
        "G19",
        "At 2.5 × S the best batched setting answers at least 2.5 times as many requests per "
        "second as none (was 2.36).",
        "best_batched_gain_at_top_rate",
        ">=",
        "×",
        date=_DATE_2,
        value=2.5,
    ),
    _guess(
        "G20",
        "B=32 W=0 keeps up at every rate up to at least 2 × S (was 1.25 × S).",
        "b32_w0_highest_rate_kept_up",
        ">=",
        "× S",
        date=_DATE_2,
        value=2.0,
    ),
    _guess(
        "G21",
        "At least one batched setting keeps up at 2.5 × S in every round (was none).",
        "settings_kept_up_at_top_rate",
        ">=",
        "settings",
        date=_DATE_2,
        value=1,
    ),
    _guess(
        "G22",
        "At 0.5 × S, B=32 W=0 still cuts none's p99 by a factor of at least 1.5 (was 1.84).",
        "b32_w0_p99_cut_at_0_5",
        ">=",
        "×",
        date=_DATE_2,
        value=1.5,
    ),
    _guess(
        "G23",
        "At 0.5 × S, B=32 W=0 still scores 1.0 to 1.6 rows per model call on average (was 1.48).",
        "b32_w0_mean_batch_at_0_5",
        "between",
        "rows",
        date=_DATE_2,
        low=1.0,
        high=1.6,
    ),
    _guess(
        "G24",
        "Inside the handler with no batching, the model call takes 250 to 450 µs (was 440 µs).",
        "none_model_us_at_0_5",
        "between",
        "µs",
        date=_DATE_2,
        low=250,
        high=450,
    ),
    _guess(
        "G25",
        "Every Part B answer is checked to the bit against the reference, and none differs.",
        "answers_differing",
        "==",
        "answers",
        date=_DATE_2,
        value=0,
    ),
    _guess(
        "G26",
        "The slow-run rule leaves at most 5 runs that never passed it.",
        "slow_never_passed",
        "between",
        "runs",
        date=_DATE_2,
        low=0,
        high=5,
    ),
)

# --- 2026-12-02: guesses for the third full campaign (issue 29, profile full3), written before
# it ran ----------------------------------------------------------------------------------
# Seen by then: full-20261129 (one-row call 297 µs, S 1,510, the old machinery) and
# full-20261130 (475 µs, S 1,177, the new machinery, a core about 1.6× slower); the power
# analysis of the grid (lab/design_notes.py, the 2026-12-02 note on full3); and the second
# switchback benchmark (data/bench/switchback.json, 2026-12-02 05:59-06:31, 180 runs in twin
# slices of 0.1 s, 8 s windows, S 684/s on a core about 1.7× slower than full-20261130's,
# none's p50 4.2 ms): queue B=1's p50 +113 µs [52, 177], told apart; B=32 W=1's server time
# +686 µs [647, 728] over W=0's 2,185 µs; the W = 1 ms overshoot 75.5 µs [73.5, 77.0]; the A/A
# p50 the same within ±5% (per-run SD of d 0.050). The third campaign's host may be of either
# speed, so each absolute range spans both; its switchback windows are 5 s, not 8.
_DATE_3 = "2026-12-02"
GUESSES_20261202 = (
    _guess(
        "G27",
        "One row alone costs 280 to 520 µs per predict_proba call (297 µs in full-20261129, "
        "475 µs in full-20261130, on a core about 1.6 times slower).",
        "part_a_per_call_us_1",
        "between",
        "µs",
        date=_DATE_3,
        low=280,
        high=520,
    ),
    _guess(
        "G28",
        "S is 1,050 to 1,700 answers per second (1,510 and 1,177 in the first two campaigns).",
        "S",
        "between",
        "answers/s",
        date=_DATE_3,
        low=1050,
        high=1700,
    ),
    _guess(
        "G29",
        "No batching keeps up at 0.8 × S and at no higher rate, in all 8 rounds.",
        "none_highest_rate_kept_up",
        "between",
        "× S",
        date=_DATE_3,
        low=0.8,
        high=0.8,
    ),
    _guess(
        "G30",
        "B=32 W=0 keeps up at every rate up to at least 1.6 × S in all 8 rounds (1.25 and 2 × S "
        "before; 2 s windows judge the edge more strictly).",
        "b32_w0_highest_rate_kept_up",
        ">=",
        "× S",
        date=_DATE_3,
        value=1.6,
    ),
    _guess(
        "G31",
        "At 2.5 × S the best batched setting answers at least 2.3 times as many requests per "
        "second as none (2.36 and 2.77 before).",
        "best_batched_gain_at_top_rate",
        ">=",
        "×",
        date=_DATE_3,
        value=2.3,
    ),
    _guess(
        "G32",
        "At 0.5 × S, B=32 W=0 cuts none's p99 by a factor of 1.3 to 2.6, and the interval over "
        "the 8 paired rounds tells them apart (1.84 and 2.11 before, in 8 s windows).",
        "b32_w0_p99_cut_at_0_5",
        "between",
        "×",
        date=_DATE_3,
        low=1.3,
        high=2.6,
    ),
    _guess(
        "G33",
        "At 0.5 × S, B=32 W=0 scores 1.2 to 1.6 rows per model call on average (1.48 and 1.38).",
        "b32_w0_mean_batch_at_0_5",
        "between",
        "rows",
        date=_DATE_3,
        low=1.2,
        high=1.6,
    ),
    _guess(
        "G34",
        "Inside the handler with no batching, the model call takes 380 to 700 µs at 0.5 × S "
        "(440 and 612 µs).",
        "none_model_us_at_0_5",
        "between",
        "µs",
        date=_DATE_3,
        low=380,
        high=700,
    ),
    _guess(
        "G35",
        "In the switchback runs queue B=1's p50 is 20 to 200 µs above none's, told apart.",
        "switchback_b1_p50_overhead_us",
        "between",
        "µs",
        date=_DATE_3,
        low=20,
        high=200,
    ),
    _guess(
        "G36",
        "In the grid, queue B=1's p50 overhead at 0.5 × S is −150 to 300 µs (88 µs in "
        "full-20261130): the 8 rounds resolve only about ±300 µs.",
        "queue_b1_p50_overhead_us_at_0_5",
        "between",
        "µs",
        date=_DATE_3,
        low=-150,
        high=300,
    ),
    _guess(
        "G37",
        "In the switchback runs a 1 ms timed wait overshoots by 20 to 150 µs.",
        "switchback_w1_overshoot_us",
        "between",
        "µs",
        date=_DATE_3,
        low=20,
        high=150,
    ),
    _guess(
        "G38",
        "In the switchback runs B=32 W=1's server time is 300 to 1,200 µs above B=32 W=0's, "
        "told apart.",
        "switchback_w1_server_cost_us",
        "between",
        "µs",
        date=_DATE_3,
        low=300,
        high=1200,
    ),
    _guess(
        "G39",
        "The A/A switchback runs (none against none) find the p50 the same within ±5%.",
        "switchback_aa_p50_same",
        "==",
        "yes/no",
        date=_DATE_3,
        value=True,
    ),
    _guess(
        "G40",
        "Every Part B answer is checked to the bit against the reference, and none differs.",
        "answers_differing",
        "==",
        "answers",
        date=_DATE_3,
        value=0,
    ),
    _guess(
        "G41",
        "The campaign takes at most 100 minutes from its first run's start to its last run's end.",
        "campaign_wall_minutes",
        "<=",
        "min",
        date=_DATE_3,
        value=100,
    ),
    _guess(
        "G42",
        "Its raw files take at most 18 MiB.",
        "campaign_raw_mib",
        "<=",
        "MiB",
        date=_DATE_3,
        value=18,
    ),
)
# The campaign freezes these into its campaign.json; earlier campaigns keep their own.
GUESSES = GUESSES_20261202
