"""The campaign: the schedule, the resumable runner (`python -m lab run`), one executor per
run kind, the campaign's folder and its self-description (campaign.json), progress, and the
metadata every raw run file carries."""
