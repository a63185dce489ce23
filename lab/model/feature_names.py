"""The six features' names, in the order the model sees them (kept apart from
lab.model.features so that the service and scoring import neither pandas nor the feature
code)."""

FEATURES = (
    "days_since_last",
    "days_since_first",
    "orders_so_far",
    "spend_so_far",
    "cds_so_far",
    "spend_last_90d",
)
