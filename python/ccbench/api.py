"""Running one scenario from Python: `ccbench.run(scenario) -> Result`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccbench import _ccsim
from ccbench.inputs import TomlText
from ccbench.scenario import capture_dir as scenario_capture_dir
from ccbench.scenario import load as load_scenario
from ccbench.scenario import text_for_core

if TYPE_CHECKING:  # imported when a run returns, not with `import ccbench` (NumPy, pandas, pyarrow)
    from ccbench.run_result import Result


def run(
    scenario: str | Path | Mapping[str, Any],
    seed: int | None = None,
    allow_large: bool = False,
    capture_dir: str | Path | None = None,
    progress: Callable[[float], None] | None = None,
    tables: Sequence[str] | None = None,
) -> Result:
    """Runs a scenario (a TOML file's path as a str or pathlib.Path, or a dict)
    and returns its Result; TOML text goes through `run_toml`. A str is always
    a file name: a missing file is an error naming it. `seed` (an int) overrides
    the scenario's seed. Raises
    ccbench.ScenarioFileError before anything runs if a field is invalid or
    beyond a limit of ccbench.limits (`allow_large` lifts those). Ctrl-C
    stops the simulation (KeyboardInterrupt). A packet capture
    (`[record.pcap]`) is written in `capture_dir`, by default beside the
    scenario file (the working directory for text or a dict); its path is
    `meta["pcap"]["path"]`. `progress`, if given, is called with the simulated
    seconds reached, every 65,536 events. `tables`, if given, names the
    sampled tables to record (of series, cc_state, rtt, link_series,
    source_series; [] for none): the run is the same and its summaries
    (flows, links, sources) are identical, but a slow link's run takes a
    fraction of the time; reading a table it did not record raises
    TableNotSaved (a LookupError). An unknown name is a ValueError."""
    from ccbench.run_result import Result

    if isinstance(tables, str):
        raise TypeError(f"tables: a list of table names (e.g. [{tables!r}]), not the string {tables!r}")
    normalized = load_scenario(scenario, seed=seed, allow_large=allow_large)
    capture_dir = scenario_capture_dir(scenario, capture_dir)
    text, shared = text_for_core(normalized)
    raw = _ccsim.run(
        text,
        capture_dir=str(capture_dir),
        progress=progress,
        tables=None if tables is None else list(tables),
        traces=[o.core for o in shared],
    )
    return Result.from_raw(raw, normalized, _ccsim.__version__)


def run_toml(
    text: str,
    seed: int | None = None,
    allow_large: bool = False,
    capture_dir: str | Path | None = None,
    progress: Callable[[float], None] | None = None,
    tables: Sequence[str] | None = None,
) -> Result:
    """`run` of a scenario given as TOML text (not a file name)."""
    return run(
        TomlText(text), seed=seed, allow_large=allow_large, capture_dir=capture_dir, progress=progress, tables=tables
    )


def algorithms() -> list[dict]:
    """Every implemented algorithm: name, reference, summary, params, state."""
    return list(_ccsim.algorithms())


def campaign(
    campaign: str | Path | Mapping[str, Any],
    out: str | Path | None = None,
    jobs: int | None = None,
    executor: str = "local",
    address: str | None = None,
    force: bool = False,
    report: bool = True,
    until_decided: int | None = None,
):
    """Runs (or resumes) a campaign (a campaign file path, a dict, or TOML
    text marked as ccbench.TomlText(text): the rule of `run`) into `out`
    (default ccbench-out/<name>) and returns its results as
    `ccbench.load(out)` does; with `report`, report.html is (re)built too.
    `executor`: "local" (`jobs` processes, default all cores) or "ray"
    (`address` of a cluster, or a local Ray). Raises
    ccbench.CampaignFileError before anything runs if the file is invalid.
    `until_decided=N` adds repetitions (up to N) while the recommendation is
    undecided, as `ccbench campaign --until-decided --max-reps N`."""
    from ccbench.campaigns import runner, spec
    from ccbench.campaigns.report import build

    if until_decided:
        raw, source, text, folder = spec.read(campaign)
        done, _, _ = runner.run_until_decided(
            raw, source, text, folder, out, jobs, executor, address, force, max_reps=until_decided
        )
    else:
        done = runner.run(campaign, out, jobs, executor, address, force)
    if report:
        build(done.directory, jobs=jobs)
    return load(done.directory)


def load(directory: str | Path):
    """A results directory read back.

    A campaign directory (`ccbench campaign`, `compare`, `study`,
    `recommend`): `.flows` (one row per flow per run), `.runs` (one row per
    run), `.index` (every run's status, seed, times, worker), `.design` and
    `.text` (the campaign file). Of an unfinished campaign (stopped, or still
    running), the finished runs: `.partial` is then true, with `.finished` of
    `.planned` runs.

    A run directory (`ccbench run --out`, `ccbench emulate`, a campaign's
    `runs/...`): the `Result` the run returned (`run_files.load`)."""
    from ccbench.campaigns import storage

    d = Path(directory)
    if (d / storage.INDEX).exists():
        return storage.load(d)
    if (d / "meta.json").exists():
        from ccbench import run_files

        return run_files.load(d)
    raise storage.CampaignDirectoryError(
        f"{d}: neither a campaign directory (no {storage.INDEX}) nor a run directory (no meta.json)"
    )


def emulate(
    scenario: str | Path | Mapping[str, Any],
    seed: int | None = None,
    packets_file: str | Path | None = None,
    capture_dir: str | Path | None = None,
) -> Result:
    """Runs a scenario (a file path, a dict or ccbench.TomlText(text), as
    `run`) through the real Linux kernel's TCP over links emulated by ccemu
    (root, /dev/net/tun and `ip netns` needed) and returns the same Result
    as `run` (meta["mode"] == "emulate"); a packet capture goes to
    `capture_dir` as in `run`. See ccbench.emulate."""
    from ccbench.emulate.runner import emulate as _emulate_kernel

    return _emulate_kernel(scenario, seed=seed, packets_file=packets_file, capture_dir=capture_dir)
