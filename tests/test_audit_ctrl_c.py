"""One Ctrl-C ends a command, and every process it started, within seconds: exit status
130, one line on stderr, no traceback. Each test sends SIGINT once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ,
       "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}

pytestmark = pytest.mark.skipif(not Path("/proc/self/cmdline").exists(),
                                reason="finds processes through /proc")


def processes_with(tag: str, *more: str) -> list[int]:
    """The ids of the running processes whose command line holds ``tag`` (and ``more``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.name != str(os.getpid()):
            try:
                cmdline = (entry / "cmdline").read_bytes()
                state = (entry / "stat").read_text().split(") ")[-1][:1]
            except OSError:
                continue
            if all(t.encode() in cmdline for t in (tag, *more)) and state != "Z":
                found.append(int(entry.name))
    return found


def wait_for(condition: object, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():   # type: ignore[operator]
            return True
        time.sleep(0.1)
    return False


def start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV)


def interrupt_once(proc: subprocess.Popen[str], within: float) -> tuple[str, float]:
    """Send one SIGINT; ``(stderr, seconds to exit)``; kills the process and fails if it
    is still running ``within`` seconds later."""
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        _, err = proc.communicate(timeout=within)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"still running {within} s after one Ctrl-C: {err[-2000:]}")
    return err, time.monotonic() - sent


CALLBACK_PROBE = """
import ctypes, signal, sys, time
from uno_env.cli import run_command

def main():
    # as when Ctrl-C arrives while llvmlite calls back into Python (numba loading
    # kernels): the KeyboardInterrupt is raised inside a ctypes callback, which drops it
    ctypes.CFUNCTYPE(None)(lambda: signal.raise_signal(signal.SIGINT))()
    end = time.monotonic() + 30
    while time.monotonic() < end:
        time.sleep(0.01)
    return 0

sys.exit(run_command(main, "probe"))
"""


def test_a_ctrl_c_python_drops_in_a_callback_still_ends_the_command() -> None:
    done = subprocess.run([sys.executable, "-c", CALLBACK_PROBE], capture_output=True,
                          text=True, env=ENV, timeout=120)
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip() == "probe: interrupted"


def test_other_unraisable_errors_are_still_reported() -> None:
    probe = ("import ctypes, sys\nfrom uno_env.cli import run_command\n"
             "def boom():\n    raise RuntimeError('from a callback')\n"
             "sys.exit(run_command(lambda: ctypes.CFUNCTYPE(None)(boom)(), 'probe'))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=ENV, timeout=120)
    assert done.returncode == 0 and "RuntimeError: from a callback" in done.stderr


LATE_REDELIVERY_PROBE = """
import ctypes, signal, sys, time
import uno_env.cli
from uno_env.cli import run_command

def slow_stop(only=None):
    time.sleep(0.5)   # the handling of the Ctrl-C outlasts the redelivery's delay

uno_env.cli._children.stop = slow_stop

def main():
    # one Ctrl-C that Python both drops in a callback (a redelivery is scheduled) and
    # raises in the command, which stops at once
    ctypes.CFUNCTYPE(None)(lambda: signal.raise_signal(signal.SIGINT))()
    raise KeyboardInterrupt

sys.exit(run_command(main, "probe"))
"""


def test_a_redelivery_as_the_command_stops_does_not_interrupt_its_handling() -> None:
    """The interrupt handling ran while a redelivered Ctrl-C was still on its way: it
    arrived during the message, and the process died of SIGINT (status -2) instead of
    ending with 130."""
    done = subprocess.run([sys.executable, "-c", LATE_REDELIVERY_PROBE],
                          capture_output=True, text=True, env=ENV, timeout=120)
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip() == "probe: interrupted"


@pytest.mark.parametrize("delay", [3.0, 8.0])
def test_one_ctrl_c_ends_simulate(delay: float) -> None:
    proc = start("-m", "uno_env.cli", "simulate", "--games", "100000000", "--batch", "64",
                 "--no-progress")
    time.sleep(delay)   # loading kernels (3 s on a quiet machine), then playing
    if proc.poll() is not None:
        pytest.fail(f"ended before the Ctrl-C: {proc.communicate()[1][-2000:]}")
    err, _ = interrupt_once(proc, within=10)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert err.strip().splitlines()[-1] == "uno-env: interrupted"


THREADED_CHILDREN = """
import sys
from concurrent.futures import ThreadPoolExecutor
import uno_env.cli
from uno_env.cli import run_command, run_process

uno_env.cli.CHILD_GRACE_S = 1.0

def main():
    # children that ignore Ctrl-C (killed after the grace period), each leaving a file
    # once it does, so the test interrupts only after they are under way
    child = [sys.executable, "-c", "import pathlib, signal, sys, time; signal.signal("
             "signal.SIGINT, signal.SIG_IGN); pathlib.Path(sys.argv[2]).touch(); "
             "time.sleep(120)", sys.argv[1]]
    with ThreadPoolExecutor(2) as pool:   # children waited for by threads, as in a sweep
        list(pool.map(lambda k: run_process(child + [f"{sys.argv[2]}.{k}"]), range(2)))

sys.exit(run_command(main, "probe"))
"""


def test_one_ctrl_c_ends_children_waited_for_by_threads(tmp_path: Path) -> None:
    tag = f"audit-{uuid.uuid4().hex}"
    ready = tmp_path / "ready"
    proc = start("-c", THREADED_CHILDREN, tag, str(ready))
    try:
        assert wait_for(lambda: len(list(tmp_path.glob("ready.*"))) == 2, 60), \
            "children never started"
        err, seconds = interrupt_once(proc, within=8)
    finally:
        for pid in processes_with(tag):
            os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 130 and err.strip() == "probe: interrupted", err
    assert seconds < 5
    assert processes_with(tag) == []


def test_a_child_ends_when_its_parent_is_killed() -> None:
    tag = f"audit-{uuid.uuid4().hex}"
    probe = ("import sys\nfrom uno_env.cli import run_process\n"
             "run_process([sys.executable, '-c', 'import time; time.sleep(120)', sys.argv[1]])\n")
    proc = start("-c", probe, tag)
    try:
        assert wait_for(lambda: len(processes_with(tag)) == 2, 60), "child never started"
        proc.kill()
        proc.communicate()
        assert wait_for(lambda: processes_with(tag) == [], 5), "the child outlived its parent"
    finally:
        for pid in processes_with(tag):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.train
def test_one_ctrl_c_ends_exploit_and_its_training_process(tmp_path: Path) -> None:
    pytest.importorskip("safetensors")
    out = tmp_path / f"probe-{uuid.uuid4().hex}"
    proc = start(str(REPO / "experiments" / "exploit.py"), "--targets", "greedy",
                 "--init-net", str(REPO / "agents" / "models" / "official-2p.safetensors"),
                 "--timesteps", "100000000", "--deals", "4", "--num-envs", "8",
                 "--n-steps", "16", "--batch-size", "64", "--out", str(out))
    try:
        assert wait_for(lambda: len(processes_with(str(out), "train_ppo.py")) >= 1, 180), \
            f"no training started: {proc.poll()}"
        time.sleep(5)   # the training process loads and starts
        err, _ = interrupt_once(proc, within=30)
        assert wait_for(lambda: processes_with(str(out)) == [], 5), "a child survived"
    finally:
        for pid in processes_with(str(out)):
            os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "exploit: interrupted"
    assert "the same exploit.py command continues the exploiter of greedy" in err, err


def test_a_failed_step_ends_the_command_in_one_line() -> None:
    probe = ("import sys\nfrom uno_env.cli import run_command, run_process\n"
             "sys.exit(run_command(lambda: run_process([sys.executable, 'step.py']), "
             "'probe'))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=ENV, timeout=120, cwd=REPO / "tests")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == "probe: step.py failed (exit status 2)"
    assert "Traceback" not in done.stderr.split("probe:")[-1]


def test_commands_nest_and_put_the_hooks_back() -> None:
    from uno_env.cli import run_command

    hook, handler = sys.unraisablehook, signal.getsignal(signal.SIGINT)

    def inner() -> int:
        assert sys.unraisablehook is not hook and signal.getsignal(signal.SIGINT) is not handler
        return run_command(lambda: 3, "inner")
    assert run_command(inner, "outer") == 3
    assert sys.unraisablehook is hook and signal.getsignal(signal.SIGINT) is handler


# --- Ctrl-C during start-up, before the command's own handling -----------------------

#: Put first on the path of a process (as ``sitecustomize``, which Python imports at
#: start-up), this makes the import of the module named by ``STALL_ON`` wait: it leaves
#: the file ``STALL_MARK`` once it waits there, so a test sends its one Ctrl-C while the
#: command is certainly inside that import, then waits up to 60 s (the Ctrl-C ends it).
STALL = """
import os, pathlib, sys, time

class Stall:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["STALL_ON"]:
            sys.meta_path.remove(self)
            pathlib.Path(os.environ["STALL_MARK"]).touch()
            end = time.monotonic() + 60
            while time.monotonic() < end:
                time.sleep(0.01)
        return None

sys.meta_path.insert(0, Stall())
"""


def run_probe(code: str) -> subprocess.CompletedProcess[str]:
    """``python -c code`` to its end, its output captured."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=ENV, timeout=60)


def console_script(tmp_path: Path) -> Path:
    """The ``uno-env`` console script as pip writes it from pyproject.toml's entry point."""
    import tomllib

    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    module, function = scripts["uno-env"].split(":")
    path = tmp_path / "uno-env"
    path.write_text(f"import sys\nfrom {module} import {function}\n"
                    f"if __name__ == '__main__':\n    sys.exit({function}())\n")
    return path


def start_stalled(tmp_path: Path, stall_on: str, *args: str) -> tuple[subprocess.Popen[str],
                                                                       Path]:
    """A process ``python args`` whose import of ``stall_on`` waits (:data:`STALL`), and
    the file it leaves once it waits there."""
    hook = tmp_path / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(STALL)
    mark = tmp_path / f"stalled-{uuid.uuid4().hex}"
    env = {**ENV, "PYTHONPATH": os.pathsep.join([str(hook), ENV["PYTHONPATH"]]),
           "STALL_ON": stall_on, "STALL_MARK": str(mark)}
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    return proc, mark


def until_stalled(proc: subprocess.Popen[str], mark: Path) -> None:
    if not wait_for(lambda: mark.exists() or proc.poll() is not None, 120) or \
            not mark.exists():
        proc.kill()
        pytest.fail(f"never reached the import: {proc.communicate()[1][-2000:]}")


@pytest.mark.parametrize(("command", "stall_on", "name"), [
    ("uno-env", "uno_env.cli", "uno-env"),          # the guard set, nothing heavy yet
    ("uno-env", "numpy", "uno-env"),                # deep inside the command's imports
    ("experiments/combine_advisers.py", "torch", "combine_advisers"),
    ("experiments/train_ppo.py", "uno_env.cli", "train_ppo"),
])
def test_one_ctrl_c_during_start_up_ends_the_command_quietly(
        tmp_path: Path, command: str, stall_on: str, name: str) -> None:
    script = console_script(tmp_path) if command == "uno-env" else REPO / command
    proc, mark = start_stalled(tmp_path, stall_on, str(script), "--help")
    until_stalled(proc, mark)
    err, _ = interrupt_once(proc, within=10)
    assert proc.returncode == 130, err
    assert err.strip() == f"{name}: interrupted", err


def test_a_ctrl_c_in_a_callback_from_c_during_start_up_ends_the_command() -> None:
    """Before the command's handling too, a Ctrl-C inside a callback from C code (llvmlite's
    while numba loads kernels) is not dropped: the guard raises nothing to drop."""
    probe = ("import ctypes, signal, time\nfrom uno_env.launch import guard\n"
             "guard('probe')\n"
             "ctypes.CFUNCTYPE(None)(lambda: signal.raise_signal(signal.SIGINT))()\n"
             "time.sleep(30)\n")
    done = run_probe(probe)
    assert done.returncode == 130 and done.stderr.strip() == "probe: interrupted", done.stderr


STEP_STARTING = """
import sys
from uno_env.cli import run_command, run_process

sys.exit(run_command(lambda: run_process([sys.executable, sys.argv[1], "--help"]), "probe"))
"""


def test_one_ctrl_c_ends_a_step_still_starting_up(tmp_path: Path) -> None:
    """A Ctrl-C while a command's step is still importing: the command forwards it, the
    step ends at once (its own guard), and nothing survives."""
    step = str(REPO / "experiments" / "combine_advisers.py")   # imports torch; the probe not
    proc, mark = start_stalled(tmp_path, "torch", "-c", STEP_STARTING, step)
    try:
        until_stalled(proc, mark)
        assert len(processes_with(step)) == 2   # the probe (its command line names it too)
        err, seconds = interrupt_once(proc, within=10)
        assert wait_for(lambda: processes_with(step) == [], 5), "the step survived"
    finally:
        for pid in processes_with(step):
            os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert [line for line in err.splitlines() if line] == [
        "combine_advisers: interrupted", "probe: interrupted"]
    assert seconds < 5


def test_every_experiment_starts_with_the_guard() -> None:
    """Its first statement after the module docstring and ``__future__`` import."""
    import ast

    for path in sorted((REPO / "experiments").glob("*.py")):
        body = [node for node in ast.parse(path.read_text()).body
                if not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
                and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
        first, second = ast.unparse(body[0]), ast.unparse(body[1])
        assert first == "from uno_env.launch import guard", path.name
        assert second == f"guard({path.stem!r}, __name__)", path.name


def test_the_launcher_imports_nothing_heavy() -> None:
    probe = ("import sys\nimport uno_env.launch\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in "
             "('numpy', 'numba', 'torch', 'gymnasium', 'pettingzoo', 'uno_agents') "
             "or m.startswith('uno_env.') and m not in ('uno_env.launch', 'uno_env._aliases')))"
             "\n")
    done = run_probe(probe)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_numba_reads_the_structs_types_without_running_python_code() -> None:
    """numba's dispatcher reads each argument's ``_numba_type_`` from C and clears any
    exception raised meanwhile: a Ctrl-C raised in Python code run by that read was
    dropped, and ``uno-env simulate`` played on (seen as one Ctrl-C in three, a moment
    after the kernels loaded). The engine's structs answer from their own ``__dict__``."""
    pytest.importorskip("numba")
    from uno_env import Rules
    from uno_env.engine.compiled.layout import rules_struct, state_struct
    from uno_env.engine.state import State

    rules, state = rules_struct(Rules.preset("official")), state_struct(State.empty(2, 2))
    called: list[str] = []
    sys.setprofile(lambda frame, event, _: called.append(frame.f_code.co_name)
                   if event == "call" else None)
    try:
        types = rules._numba_type_, state._numba_type_
    finally:
        sys.setprofile(None)
    assert called == [] and None not in types, called
