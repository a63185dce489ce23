"""Customer-month rows from the shop log: six features from purchases *before* the month.
Used by `python -m lab data` (lab/model/build.py).

One row = one customer at the start of one month; the label says whether they buy in it.
Only purchases strictly before the month's first day enter the features (no leakage).
"""

import numpy as np
import pandas as pd

from lab.model.feature_names import FEATURES

FIRST_MONTH = pd.Timestamp("1997-02-01")  # the log starts in 1997-01: no history before it
LAST_MONTH = pd.Timestamp("1998-06-01")  # the log ends in 1998-06
SERVING_MONTH = pd.Timestamp("1998-07-01")  # the feature store holds features as of here
TEST_FROM = pd.Timestamp("1998-05-01")  # train on months before, test on this month and after


def month_starts(first=FIRST_MONTH, last=LAST_MONTH) -> list[pd.Timestamp]:
    return list(pd.date_range(first, last, freq="MS"))


def features_at(log: pd.DataFrame, month_start: pd.Timestamp) -> pd.DataFrame:
    """Features of every customer with at least one purchase before `month_start`."""
    past = log[log["date"] < month_start]
    grouped = past.groupby("customer_id", sort=True)
    recent = past[past["date"] >= month_start - pd.Timedelta(days=90)]
    table = pd.DataFrame(
        {
            "days_since_last": (month_start - grouped["date"].max()).dt.days,
            "days_since_first": (month_start - grouped["date"].min()).dt.days,
            "orders_so_far": grouped.size(),
            "spend_so_far": grouped["spend"].sum(),
            "cds_so_far": grouped["cds"].sum(),
        }
    )
    table["spend_last_90d"] = recent.groupby("customer_id")["spend"].sum()
    table["spend_last_90d"] = table["spend_last_90d"].fillna(0.0)
    return table.astype(np.float64)[list(FEATURES)]


def buyers_in(log: pd.DataFrame, month_start: pd.Timestamp) -> set[int]:
    month_end = month_start + pd.offsets.MonthBegin(1)
    in_month = log[(log["date"] >= month_start) & (log["date"] < month_end)]
    return set(in_month["customer_id"].tolist())


def customer_months(log: pd.DataFrame) -> pd.DataFrame:
    """All customer-month rows: customer_id, month, the six features, label (0/1)."""
    frames = []
    for month_start in month_starts():
        table = features_at(log, month_start)
        buyers = buyers_in(log, month_start)
        table["label"] = table.index.isin(list(buyers)).astype(np.int64)
        table["month"] = month_start
        frames.append(table.reset_index())
    return pd.concat(frames, ignore_index=True)
