"""The `ccbench` command line. A command's code is in the module of its group:

- run.py: run, plot (one run's summary, tables and plots)
- campaign.py: campaign, studies, study, report, compare
- recommend.py: recommend, fit (your own network)
- info.py: algorithms, kernels, profiles
- files.py: new (alias init), schema, validate
- emulate.py: emulate (the real kernel's TCP)
- common.py: the typer app, its global options (-q, -v, --version), the exit
  code of a refused input and the helpers the commands share

A bad scenario file prints one message (field path, bad value, what is
allowed) and exits with code 2 before anything runs or any file is written.
"""

from ccbench.cli import campaign, emulate, files, info, recommend, run
from ccbench.cli.common import app

# In the order `ccbench --help` lists them.
app.command()(run.run)
app.command()(campaign.campaign)
app.command("studies")(campaign.studies_cmd)
app.command("study")(campaign.study_cmd)
app.command("report")(campaign.report_cmd)
app.command("plot")(run.plot_cmd)
app.command()(campaign.compare)
app.command()(recommend.recommend)
app.command("algorithms")(info.algorithms_cmd)
app.command("kernels")(info.kernels_cmd)
app.command("profiles")(info.profiles_cmd)
app.command("new")(files.new_cmd)
app.command("init", help="Write a commented starter scenario (same as new).")(files.new_cmd)
app.command("schema")(files.schema_cmd)
app.command()(files.validate)
app.command("emulate")(emulate.emulate_cmd)
app.command("fit")(recommend.fit_cmd)


def main() -> None:
    """The `ccbench` command; the process ends without the interpreter's
    teardown of its modules (ccbench.quick_exit)."""
    from ccbench import quick_exit

    quick_exit.run(app)
