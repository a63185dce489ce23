"""One executor per run kind (Part A, bits, saturation, Part B, Part C): each runs one
scheduled run and hands the runner what goes into its raw file; `common` holds what they share."""
