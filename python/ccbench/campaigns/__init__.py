"""Campaigns: factors x levels x repetitions from a campaign file, run
locally or on Ray, resumable, analysed and reported from saved results.

spec (the file and its runs), storage (directory, index, tidy tables),
executors (where runs execute), runner (the driver), analysis (statistics
and recommendation), figures and report (plots and report.html).
"""
