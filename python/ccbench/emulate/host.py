"""The host side of kernel mode: preflight checks, the names of everything a
run creates (all start with `ccbench-`), the namespaces' set-up, and their
removal, including what a killed run left behind.

A run with tag T (the orchestrator's pid in hex) creates the namespaces
ccbench-T-snd (the senders of downlink flows) and ccbench-T-rcv, and the
emulator's TUN devices ccbench-Ta (moved into -snd) and ccbench-Tb (into
-rcv). The devices die with the emulator; the emulator and the flow agents
die with the orchestrator (PR_SET_PDEATHSIG); the namespaces are what a
SIGKILL leaves, and `cleanup` removes those whose run is gone.

`ccbench emulate` also registers the output it is writing (its `.partial`
staging directory and the `.NAME.lock` beside it) under REGISTRY/T.json
while it runs; `cleanup` (which the next run and `ccbench emulate --cleanup`
call) removes what a run whose orchestrator is gone left there too.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PREFIX = "ccbench-"
#: Address plan: the sender namespace's network and the receiver's (one /24 each).
SENDER_NET, RECEIVER_NET = "10.201.1", "10.201.2"
_NAMESPACE = re.compile(r"^ccbench-([0-9a-f]+)-(snd|rcv)$")


class PreflightError(RuntimeError):
    """What is missing to run in kernel mode, said exactly."""


def run_cmd(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), capture_output=True, text=True, check=check)


def preflight() -> None:
    """Checks root, /dev/net/tun and `ip netns` before anything is created."""
    if os.geteuid() != 0:
        raise PreflightError(
            "kernel mode needs root: it creates network namespaces and TUN devices. Run it as root with the "
            'ccbench of your environment, e.g. sudo "$(command -v ccbench)" emulate SCENARIO (plain `sudo ccbench` '
            "searches sudo's own PATH, which does not hold a virtualenv's ccbench)"
        )
    if not os.path.exists("/dev/net/tun"):
        raise PreflightError(
            "/dev/net/tun is missing: load the tun module (modprobe tun), or give the container the device "
            "(docker run --device /dev/net/tun --cap-add NET_ADMIN)"
        )
    if shutil.which("ip") is None:
        raise PreflightError("the ip command is missing: install iproute2 (apt-get install iproute2)")
    probe = f"{PREFIX}{os.getpid():x}-probe"
    r = run_cmd("ip", "netns", "add", probe, check=False)
    if r.returncode != 0:
        raise PreflightError(
            f"cannot create network namespaces (ip netns add: {r.stderr.strip()}); "
            "a container needs CAP_SYS_ADMIN (docker run --privileged)"
        )
    run_cmd("ip", "netns", "del", probe, check=False)


@dataclass(frozen=True)
class Names:
    tag: str

    @property
    def sender_ns(self) -> str:
        return f"{PREFIX}{self.tag}-snd"

    @property
    def receiver_ns(self) -> str:
        return f"{PREFIX}{self.tag}-rcv"

    @property
    def sender_tun(self) -> str:
        return f"{PREFIX}{self.tag}a"

    @property
    def receiver_tun(self) -> str:
        return f"{PREFIX}{self.tag}b"

    @classmethod
    def for_this_process(cls) -> Names:
        return cls(f"{os.getpid():x}")


def namespaces() -> list[str]:
    """Every ccbench namespace on the host."""
    r = run_cmd("ip", "netns", "list", check=False)
    names = [line.split()[0] for line in r.stdout.splitlines() if line.strip()]
    return [n for n in names if n.startswith(PREFIX)]


_HEX = re.compile(r"[0-9a-f]+")


def tun_devices() -> list[str]:
    """ccbench devices in the root namespace (a run's devices live in its namespaces)."""
    return sorted(n for n in os.listdir("/sys/class/net") if n.startswith(PREFIX))


def alive(pid: int) -> bool:
    """The process exists and is not a zombie (a killed process whose parent
    is gone waits as a zombie until init reaps it; it holds nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def namespace_pids(ns: str) -> list[int]:
    r = run_cmd("ip", "netns", "pids", ns, check=False)
    return [int(p) for p in r.stdout.split() if p.isdigit()]


def cmdline(pid: int) -> list[bytes]:
    """A process's command line, one item per argument ([] when it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return []


def emulator_pids(tag: str | None = None) -> list[int]:
    """Emulator processes (`... --tag ccbench-T`: emulator_tag), of one run or all."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        run_tag = emulator_tag(cmdline(int(entry)))
        if run_tag is not None and (tag is None or run_tag == f"{PREFIX}{tag}"):
            pids.append(int(entry))
    return pids


def emulator_tag(argv: list[bytes]) -> str | None:
    """The `--tag` of an emulator's command line, or None for any other
    process: `ccemu --tag T` (a binary named by CCBENCH_CCEMU) or
    `PYTHON -m ccbench.emulate.ccemu --tag T` (the built-in one)."""
    if len(argv) >= 3 and argv[0].endswith(b"ccemu") and argv[1] == b"--tag":
        return argv[2].decode(errors="replace")
    if len(argv) >= 5 and argv[1:4] == [b"-m", b"ccbench.emulate.ccemu", b"--tag"]:
        return argv[4].decode(errors="replace")
    return None


def _kill(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 2
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.02)


def remove_run(tag: str) -> None:
    """Removes a run's processes, devices and namespaces (idempotent)."""
    names = Names(tag)
    for ns in (names.sender_ns, names.receiver_ns):
        if ns in namespaces():
            _kill(namespace_pids(ns))
    _kill(emulator_pids(tag))
    for ns in (names.sender_ns, names.receiver_ns):
        run_cmd("ip", "netns", "del", ns, check=False)
    for dev in (names.sender_tun, names.receiver_tun):
        if dev in tun_devices():
            run_cmd("ip", "link", "del", dev, check=False)


def cleanup(all_runs: bool = True) -> list[str]:
    """Removes what runs left behind: with `all_runs`, every ccbench
    namespace, device and emulator; otherwise only those of runs whose
    orchestrator is dead. Returns the namespaces removed."""
    tags = set()
    for ns in namespaces():
        m = _NAMESPACE.match(ns)
        if m is None:
            _kill(namespace_pids(ns))
            run_cmd("ip", "netns", "del", ns, check=False)
            continue
        tags.add(m.group(1))
    for pid in emulator_pids():
        # The tag's place depends on how the emulator was started (emulator_tag).
        run_tag = emulator_tag(cmdline(pid)) if alive(pid) else None
        if run_tag is not None and run_tag.startswith(PREFIX):
            tags.add(run_tag.removeprefix(PREFIX))
    removed = []
    for tag in sorted(tags):
        owner = int(tag, 16) if _HEX.fullmatch(tag) else None  # a run's tag is its orchestrator's pid
        if not all_runs and (owner is None or (alive(owner) and owner != os.getpid())):
            continue  # a live run's, or not a tag ccbench makes
        before = set(namespaces())
        remove_run(tag)
        removed += sorted(before - set(namespaces()))
    for dev in tun_devices():
        # A live run's emulator creates its devices here and moves them into its
        # namespaces only after creating those: another run starting meanwhile leaves them.
        if not all_runs and _live_run(dev.removeprefix(PREFIX)[:-1]):
            continue
        run_cmd("ip", "link", "del", dev, check=False)
    dead_outputs()
    return removed


#: Where a running `ccbench emulate` registers its staging directory and lock (kernel mode runs as root).
REGISTRY = Path("/run/ccbench-emulate") if Path("/run").is_dir() else Path("/tmp/ccbench-emulate")


@contextlib.contextmanager
def registered_output(tag: str, stage: Path, lock: Path) -> Iterator[None]:
    """Registers a run's staging directory and lock while it writes them, for
    `cleanup` to remove if the run is killed (kill -9 runs no finally)."""
    entry = REGISTRY / f"{tag}.json"
    REGISTRY.mkdir(mode=0o700, parents=True, exist_ok=True)
    entry.write_text(json.dumps({"stage": str(stage), "lock": str(lock)}))
    try:
        yield
    finally:
        entry.unlink(missing_ok=True)


def remove_output(tag: str) -> list[str]:
    """Removes what run `tag` registered (registered_output): its staging directory, and its lock
    file when no process holds it. Returns what was removed."""
    entry = REGISTRY / f"{tag}.json"
    try:
        left = json.loads(entry.read_text())
    except (OSError, ValueError):
        entry.unlink(missing_ok=True)
        return []
    removed = []
    stage = Path(left.get("stage", ""))
    if stage.name.endswith(".partial") and stage.is_dir():
        shutil.rmtree(stage, ignore_errors=True)
        removed.append(str(stage))
    lock = Path(left.get("lock", ""))
    if lock.name.endswith(".lock") and lock.is_file():
        with contextlib.suppress(OSError):
            fd = os.open(lock, os.O_RDWR)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held: a live run writes there; left alone
                lock.unlink()
                removed.append(str(lock))
            finally:
                os.close(fd)
    entry.unlink(missing_ok=True)
    return removed


def dead_outputs() -> list[str]:
    """remove_output of every registered run whose orchestrator is gone. Returns what was removed."""
    removed = []
    for entry in sorted(REGISTRY.glob("*.json")) if REGISTRY.is_dir() else []:
        tag = entry.stem
        if _live_run(tag) or tag == f"{os.getpid():x}":
            continue
        removed += remove_output(tag)
    return removed


def _live_run(tag: str) -> bool:
    """Whether `tag` names a run whose orchestrator is alive (not this process)."""
    try:
        pid = int(tag, 16)
    except ValueError:
        return False
    return pid != os.getpid() and alive(pid)


def ns_exec(ns: str, *args: str) -> list[str]:
    return ["ip", "netns", "exec", ns, *args]


def sysctl(ns: str, settings: dict[str, str], optional: tuple[str, ...] = ()) -> list[str]:
    """Sets sysctls inside `ns`; those in `optional` may be absent or global
    (returned, to report), the others must succeed."""
    skipped = []
    for key, value in settings.items():
        r = run_cmd(*ns_exec(ns, "sysctl", "-q", "-w", f"{key}={value}"), check=False)
        if r.returncode != 0:
            if key in optional:
                skipped.append(key)
                continue
            raise RuntimeError(f"sysctl {key}={value} in {ns} failed: {r.stderr.strip()}")
    return skipped
