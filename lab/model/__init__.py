"""The model: the shop data, the customer-month features, training (`python -m lab data`),
the SQLite feature store, the one scoring function, loading what was built, the bit check."""
