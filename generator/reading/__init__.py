"""Reading a campaign: its folder, its run files (through the lab's raw-format codec) and its
description of itself (rules, guesses, names). No arithmetic: both the build and the report
read campaigns through it."""
