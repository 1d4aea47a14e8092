#!/usr/bin/env python3
"""Public parsers of nccl-tests' and OSU's output, run unchanged on
gcbench's output under the tools' program names (tests/e2e/SOURCE.md names
each parser's repository, path and commit).

The parsers are other projects' code and are not kept here: they are read
from $GCB_PUBLIC_PARSERS, else from ../shared/testdata/public-parsers beside
the checkout, laid out as <repository name>/<path in it>. Without any of
them the test says so and exits 77 (ctest's SKIP_RETURN_CODE); a parser
that is missing while others are there is named on a SKIP line.

usage: public_parsers.py GCBENCH [MPIEXEC]
"""
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def parsers_dir():
    env = os.environ.get("GCB_PUBLIC_PARSERS")
    if env:
        return env
    return os.path.join(ROOT, "..", "shared", "testdata", "public-parsers")


class Run:
    def __init__(self, gcbench, mpiexec, work):
        self.gcbench = gcbench
        self.mpiexec = mpiexec
        self.work = work
        self.bin = os.path.join(work, "bin")
        os.makedirs(self.bin, exist_ok=True)

    def link(self, program):
        path = os.path.join(self.bin, program)
        if not os.path.exists(path):
            os.symlink(self.gcbench, path)
        return path

    def program(self, program, args, merged=False):
        """Runs gcbench as `program` on 2 ranks: (stdout, stderr), or the
        two streams in one when merged (a `2>&1 | tee LOG` or a pod log)."""
        cmd = [self.mpiexec, "-n", "2", self.link(program)] + args
        p = subprocess.run(cmd, cwd=self.work, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT if merged else
                           subprocess.PIPE, text=True, timeout=300)
        if p.returncode != 0:
            raise AssertionError("%s exited %d:\n%s%s" % (
                " ".join(cmd), p.returncode, p.stdout, p.stderr or ""))
        return p.stdout, p.stderr or ""


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def footer_busbw(text):
    m = re.search(r"^# Avg bus bandwidth\s*: (\S+)", text, re.M)
    assert m, "no Avg bus bandwidth line:\n" + text
    return float(m.group(1))


def out_of_place_busbw(text):
    """(size, busbw) of each row, read by this test on its own."""
    rows = []
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 13 and f[0].isdigit() and f[2] == "float":
            rows.append((float(f[0]), float(f[7])))
    return rows


# --- the parsers ------------------------------------------------------------

def analyze_perf_json(run, path):
    """nccl-tests' own analysis of its -J document with -I 1."""
    run.program("all_reduce_perf", ["-b", "8", "-e", "64", "-f", "4", "-n",
                                    "4", "-w", "1", "-I", "1", "-J",
                                    "nccl.json"])
    p = subprocess.run([sys.executable, path, "--all", "nccl.json"],
                       cwd=run.work, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=120)
    assert p.returncode == 0, p.stdout
    for want in ["PER-ITERATION STATS (OOP)",
                 "PER-PROCESS STRAGGLER ANALYSIS (OOP)",
                 "SPIKE ANALYSIS (>1.5x avg, OOP)",
                 "ITERATION 0 WARMUP IMPACT", "PER-NODE ANALYSIS (1 nodes",
                 "Consistency (times_us == max over process rows, OOP): "
                 "PASS"]:
        assert want in p.stdout, "no %r in:\n%s" % (want, p.stdout)


def bobber_nccl(run, path):
    """NVIDIA Bobber's parse_nccl_file on an all_reduce_perf log (its
    nccl-tests runs are logged with both streams)."""
    out, _ = run.program("all_reduce_perf", ["-b", "8", "-e", "1M", "-f",
                                             "8", "-n", "4", "-w", "1"],
                         merged=True)
    log = os.path.join(run.work, "bobber_nccl.log")
    with open(log, "w") as f:
        f.write(out)
    mod = load(path, "bobber_nccl")
    max_bw, at = mod.parse_nccl_file([log], 1)
    rows = out_of_place_busbw(out)
    assert rows, out
    best = max(rows, key=lambda r: r[1])
    assert max_bw == [best[1]] and at == [best[0]], (max_bw, at, rows)


def flagperf_mpi_intraserver(run, path):
    """FlagPerf's interconnect-MPI_intraserver case (dcu/BW/main.sh), the
    script itself, unchanged: `mpirun ... all_reduce_perf -b 1g -e 1g -f 2
    -g 1 2>&1 | tee LOG`, then grep/awk of "# Avg bus bandwidth". Its
    mpirun is Open MPI's: a shim here runs MPICH's mpiexec on 2 ranks,
    leaving out the -x variables and --allow-run-as-root, and 1g becomes
    1M (2 shared cores)."""
    shim = os.path.join(run.bin, "mpirun")
    with open(shim, "w") as f:
        f.write("""#!/bin/sh
prog=
while [ $# -gt 0 ]; do
  case "$1" in
    -x|-np|-n) shift 2 ;;
    --allow-run-as-root) shift ;;
    *) break ;;
  esac
done
args=
for a in "$@"; do [ "$a" = 1g ] && a=1M; args="$args $a"; done
exec %s -n 2 $args
""" % run.mpiexec)
    os.chmod(shim, 0o755)
    run.link("all_reduce_perf")
    env = dict(os.environ, PATH=run.bin + os.pathsep + os.environ["PATH"])
    p = subprocess.run(["bash", path], cwd=run.work, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stdout
    m = re.search(r"^\[FlagPerf Result\]interconnect-MPI_intraserver-"
                  r"bandwidth=(\S+) GB/s$", p.stdout, re.M)
    assert m, p.stdout
    avg = footer_busbw(p.stdout)
    assert abs(float(m.group(1)) - 2 * avg) <= 1e-9 * max(1.0, avg), (
        m.group(1), avg, p.stdout)


def metrics_operator_osu(run, path):
    """The Flux Framework metrics operator's OSU parser
    (run_parsing_function over a section: the command, then the output):
    osu_latency, osu_bw, osu_allreduce and osu_allgather, each as stdout
    alone and as a pod log (both streams)."""
    base = types.ModuleType("metricsoperator.metrics.base")

    class MetricBase:  # the parser's class is not used, its import is
        pass

    base.MetricBase = MetricBase
    for name in ["metricsoperator", "metricsoperator.metrics"]:
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules["metricsoperator.metrics.base"] = base
    mod = load(path, "mo_osu_benchmark")
    cases = [("osu_latency", ["-m", "1:64", "-i", "20", "-x", "2"], 2),
             ("osu_bw", ["-m", "1:64", "-i", "5", "-x", "1"], 2),
             ("osu_allreduce", ["-m", "4:64", "-i", "10", "-x", "1"], 2),
             ("osu_allgather", ["-m", "16:64", "-i", "10", "-x", "1"], 2)]
    for prog, args, ncols in cases:
        for merged in (False, True):
            out, _ = run.program(prog, args, merged=merged)
            section = [prog] + [x.strip() for x in out.split("\n")
                                if x.strip()]
            try:
                res = mod.run_parsing_function(section)
            except Exception as e:  # the parser's failure, shown
                raise AssertionError("%s%s: %r on:\n%s" % (
                    prog, " (both streams)" if merged else "", e, out))
            sizes = [r[0] for r in res["matrix"]]
            assert sizes and all(len(r) == ncols for r in res["matrix"]), res
            assert sizes == sorted(sizes), res
            want = [float(line.split()[0]) for line in out.splitlines()
                    if line[:1].isdigit()]
            assert sizes == want, (sizes, want)


PARSERS = [
    ("nccl-tests tools/analyze_perf_json.py",
     "nccl-tests/tools/analyze_perf_json.py", analyze_perf_json),
    ("Bobber bobber/lib/analysis/nccl.py",
     "Bobber/bobber/lib/analysis/nccl.py", bobber_nccl),
    ("FlagPerf interconnect-MPI_intraserver dcu/BW/main.sh",
     "FlagPerf/base/toolkits/interconnect-MPI_intraserver/dcu/BW/main.sh",
     flagperf_mpi_intraserver),
    ("metrics-operator network/osu_benchmark.py",
     "metrics-operator/sdk/python/v1alpha2/metricsoperator/metrics/network/"
     "osu_benchmark.py", metrics_operator_osu),
]


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    gcbench = os.path.abspath(sys.argv[1])
    mpiexec = sys.argv[2] if len(sys.argv) > 2 else "mpiexec"
    where = parsers_dir()
    found = [(n, os.path.join(where, p), f) for n, p, f in PARSERS
             if os.path.isfile(os.path.join(where, p))]
    for n, p, _ in PARSERS:
        if not os.path.isfile(os.path.join(where, p)):
            print("SKIP %s: not at %s (tests/e2e/SOURCE.md says where it "
                  "comes from)" % (n, os.path.join(where, p)))
    if not found:
        print("SKIP: no public parser found (set GCB_PUBLIC_PARSERS or put "
              "them in %s)" % where)
        return SKIP
    failed = 0
    for name, path, fn in found:
        work = tempfile.mkdtemp(prefix="gcb-parsers-")
        try:
            fn(Run(gcbench, mpiexec, work), path)
            print("PASS %s" % name)
        except AssertionError as e:
            failed += 1
            print("FAIL %s: %s" % (name, e))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
