"""Processes as the benchmark times them (Proc: wall from outside, exit code, peak RSS, output),
the --timing split of parfilter's stderr, and the child interpreters that have cv2 or
matplotlib (python_with, run_child)."""
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from shared import MS, TIMEOUT_S

# The entry script: a child task runs as `bench_e2e.py --child TASK JOB`.
ENTRY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_e2e.py")
# --timing stage names (common/src/cli_jobs.cpp, backend_mpi/mpi_driver.cpp) -> CSV columns.
STAGES = {"load": "load_ms", "read": "load_ms", "compute": "compute_ms",
          "compute (slowest rank)": "compute_ms", "save": "save_ms", "write": "save_ms",
          "upload": "upload_ms", "scatter": "upload_ms", "download": "download_ms",
          "gather": "download_ms", "build": "build_ms"}
TIMING_LINE = re.compile(r"^timing: (?P<input>.+): (?P<stage>[a-z][a-z ()]*?) "
                         r"(?P<ms>[0-9.]+) ms(?: \(median of \d+ runs\))?$")


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


class Proc:
    """One finished process: wall ms (perf_counter around start to reaping), exit code, peak
    RSS (KiB, os.wait4's ru_maxrss: the largest of the process and its reaped descendants),
    stdout and stderr."""

    def __init__(self, cmd, env=None, timeout=TIMEOUT_S):
        self.cmd = cmd
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            start = time.perf_counter()
            try:
                p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env,
                                     start_new_session=True)
            except OSError as e:
                self.wall_ms, self.rc, self.rss_kb, self.out, self.err = 0.0, 127, 0, "", str(e)
                return
            timer = threading.Timer(timeout, kill_group, (p.pid,))
            timer.start()
            try:
                _, status, usage = os.wait4(p.pid, 0)
            finally:
                timer.cancel()
            self.wall_ms = (time.perf_counter() - start) * MS
            p.returncode = self.rc = os.waitstatus_to_exitcode(status)
            self.rss_kb = usage.ru_maxrss
            out.seek(0)
            err.seek(0)
            self.out = out.read().decode(errors="replace")
            self.err = err.read().decode(errors="replace")

    def why(self):
        lines = [ln for ln in self.err.splitlines() if ln.strip() and
                 not ln.startswith("timing: ")] or ["(no message)"]
        return f"exit {self.rc}: {lines[-1].strip()[:200]}"


def timed_runs(cmd, warmup, repeats, env=None):
    """warm-up runs, then the repeats: (median wall ms, largest peak RSS KiB, the last Proc);
    (None, None, the failed Proc) as soon as one run fails."""
    walls, rss = [], 0
    for i in range(warmup + repeats):
        proc = Proc(cmd, env)
        if proc.rc != 0:
            return None, None, proc
        if i >= warmup:
            walls.append(proc.wall_ms)
            rss = max(rss, proc.rss_kb)
    return statistics.median(walls), rss, proc


def parse_timing(stderr):
    """--timing lines -> {column: ms} (summed over inputs and stages of the same column)."""
    times = {}
    for line in stderr.splitlines():
        m = TIMING_LINE.match(line.strip())
        if m:
            stage = m.group("stage")
            col = STAGES.get(stage, "compute_ms" if stage.startswith("compute") else None)
            if col:
                times[col] = times.get(col, 0.0) + float(m.group("ms"))
    return times


def stage_split(cmd, env, runs):
    """The --timing split: each stage's median over `runs` more runs (apart from the timed
    runs, whose wall time --timing's clocks and GPU synchronisation must not touch)."""
    samples = []
    for _ in range(runs):
        proc = Proc(cmd, env)
        if proc.rc != 0:
            break
        samples.append(parse_timing(proc.err))
    cols = {k for s in samples for k in s}
    return {k: statistics.median(s.get(k, 0.0) for s in samples) for k in cols}


def python_with(modules):
    seen = []
    for py in (sys.executable, "/usr/bin/python3", shutil.which("python3")):
        if not py or py in seen or not os.path.exists(py):
            continue
        seen.append(py)
        check = "import " + ", ".join(modules)
        if subprocess.run([py, "-c", check], capture_output=True).returncode == 0:
            return py
    return None


def run_child(python, task, job, timeout=TIMEOUT_S):
    """Runs a --child task in `python`; (result dict, Proc); result None on failure."""
    proc = Proc([python, ENTRY, "--child", task, json.dumps(job)], timeout=timeout)
    if proc.rc != 0:
        return None, proc
    try:
        return json.loads(proc.out.strip().splitlines()[-1]), proc
    except (ValueError, IndexError):
        proc.rc = -1
        return None, proc
