#!/usr/bin/env python3
"""Writes the burn-in fixtures of tests/data/burn/ (gcbench.results/2
documents with one `gcbench burn` case and its "timeline", as
docs/results-schema.md lays it out).

Written apart from the C generator of the unit tests
(tests/reports/burn_fixture.h) and from the rules they judge, with another
noise model, so that a rule tuned on one is judged on the other (DESIGN.md,
"Tune on one fixture, judge on another"): each interval's throughput
carries AR(1) noise (correlated from one interval to the next, 2.5 %
stationary spread), a rare single-interval dip to 55-90 % and a rarer
spike, GPUs warm for two minutes and settle a few percent lower, and every
telemetry series carries its own noise. Deterministic: python3 gen_burn.py
rewrites the same bytes.

  burn-healthy-gpu6.json   6 GPUs on 3 nodes, 10 min at 2 s, no fault
  burn-healthy-host5.json  5 host ranks on 1 node, 3 min at 1 s, no fault
  burn-healthy-host2.json  2 host ranks, 40 s at 1 s, no fault
  burn-gpu6-thermal.json   as healthy-gpu6, but GPU 1 of burn03 throttles
                           (hw_thermal) from 4 min 10 s, clocks -18 %
  burn-host4-hog.json      4 host ranks; another process takes half of
                           rank 1's core from second 10

Not written by this script: two real documents of `gcbench burn` (the
burnbench branch's writer, host backend, 2 ranks, this project's shared
2-core VM, 2026-12-02), kept as they came out:
  burn-real-vm-healthy.json  20 s, nothing planted
  burn-real-vm-hog.json      30 s, mpiexec -bind-to core; a busy loop pinned
                             to core 1 from second 11 (the VM's other load
                             moves ranks, so both ranks lose CPU time)
"""
import json
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def ar1(rng, n, sigma, rho=0.6):
    """n values of AR(1) noise with stationary standard deviation sigma."""
    e = sigma * math.sqrt(1 - rho * rho)
    x, out = rng.gauss(0, sigma), []
    for _ in range(n):
        x = rho * x + rng.gauss(0, e)
        out.append(x)
    return out


def healthy(rng, ranks, nt, dt, gpu):
    """Per rank: a dict of series (lists of nt numbers)."""
    out = []
    for _ in range(ranks):
        level = (702000.0 if gpu else 41.5) * (1 + rng.uniform(-0.012, 0.012))
        noise = ar1(rng, nt, 0.025)
        s = {k: [] for k in ("figure", "checked", "wrong", "cpu_util",
                             "cpu_mhz", "temp_c", "power_w", "sm_clock_mhz",
                             "mem_clock_mhz", "throttle_reasons", "ecc_sbe",
                             "ecc_dbe", "pcie_replay", "xid")}
        sbe0, replay0 = rng.randrange(0, 4), rng.randrange(0, 40)
        for i in range(nt):
            t = (i + 1) * dt
            warm = 1 - 0.025 * (1 - math.exp(-t / 120)) if gpu else 1
            f = level * warm * (1 + noise[i])
            u = rng.random()
            if u < 0.02:
                f *= rng.uniform(0.55, 0.9)
            elif u < 0.025:
                f *= rng.uniform(1.04, 1.08)
            s["figure"].append(round(f, 3))
            s["checked"].append(16 if gpu else 2)
            s["wrong"].append(0)
            s["cpu_util"].append(round(min(1.0, rng.gauss(0.99, 0.006)), 4))
            s["cpu_mhz"].append(round(rng.gauss(2450, 18), 1))
            s["temp_c"].append(round(41 + 30 * (1 - math.exp(-t / 90))
                                     + rng.gauss(0, 0.7), 1))
            s["power_w"].append(round(rng.gauss(655, 12), 1))
            s["sm_clock_mhz"].append(round(1980 * warm - rng.uniform(0, 30)))
            s["mem_clock_mhz"].append(2619)
            s["throttle_reasons"].append(0)
            s["ecc_sbe"].append(sbe0)
            s["ecc_dbe"].append(0)
            s["pcie_replay"].append(replay0)
            s["xid"].append(0)
        out.append(s)
    return out


def document(name, ranks, nodes, nt, dt, gpu, series):
    per = ranks // nodes
    host_series = ("figure", "checked", "wrong", "cpu_util", "cpu_mhz")
    keep = [k for k in series[0] if gpu or k in host_series]
    m = 8192 if gpu else 2048
    work = 2.0 * m * m * m
    figs = [sorted(s["figure"]) for s in series]
    med = [f[len(f) // 2] for f in figs]
    times = [work / (x * 1e9) for x in med]
    wrong = [sum(s["wrong"]) for s in series]
    mean = sum(med) / ranks
    sd = math.sqrt(sum((x - mean) ** 2 for x in med) / max(1, ranks - 1))
    tmax = max(times)
    case = {
        "bench": "burn", "backend": "cuda" if gpu else "host",
        "label": ("bf16 %dx%dx%d" if gpu else "fp64 %dx%dx%d") % (m, m, m),
        "params": {"dtype": "bf16" if gpu else "fp64", "m": m, "n": m,
                   "k": m, "duration_s": nt * dt, "interval_s": dt,
                   "with": "gemm"},
        "unit": "GFLOP/s", "work_per_op": work,
        "counted": "2 m n k floating-point operations per product",
        "iterations": nt, "warmup": 1,
        "summary": {"ranks": ranks, "min": min(med),
                    "median": sorted(med)[ranks // 2], "mean": mean,
                    "max": max(med), "stdev": sd,
                    "min_rank": med.index(min(med)),
                    "max_rank": med.index(max(med)),
                    "imbalance": (tmax - sum(times) / ranks) / tmax,
                    "wrong": sum(wrong), "checked": True},
        "validation": {"checked": True, "passed": sum(wrong) == 0,
                       "wrong": sum(wrong)},
        "per_rank": {
            "rank": list(range(ranks)),
            "time_s": {"n": [nt] * ranks,
                       "min": [work / (f[-1] * 1e9) for f in figs],
                       "median": times, "mean": times,
                       "max": [work / (f[0] * 1e9) for f in figs],
                       "stdev": [t * 0.03 for t in times],
                       "p99": [work / (f[0] * 1e9) for f in figs]},
            "figure_time_s": times,
            "figure": {"median": med, "best": [f[-1] for f in figs],
                       "worst": [f[0] for f in figs]},
            "validation": {"checked": [True] * ranks,
                           "samples": [sum(s["checked"]) for s in series],
                           "wrong": wrong,
                           "max_error": [0.0] * ranks,
                           "tolerance": [0.0] * ranks,
                           "method": ["compare with the first product"]
                           * ranks}},
        "timeline": {
            "interval_s": dt,
            "t_s": [round((i + 1) * dt, 3) for i in range(nt)],
            "series": {k: [s[k] for s in series] for k in keep},
            "unavailable": {} if gpu else {
                "temp_c": "no readable hwmon or thermal zone",
                "power_w": "no readable powercap zone",
                "sm_clock_mhz": "the host backend has no GPU",
                "mem_clock_mhz": "the host backend has no GPU",
                "throttle_reasons": "the host backend has no GPU",
                "ecc_sbe": "the host backend has no GPU",
                "ecc_dbe": "the host backend has no GPU",
                "pcie_replay": "the host backend has no GPU",
                "xid": "the host backend has no GPU"}},
    }
    node_list, rank_list = [], []
    for n in range(nodes):
        host = "burn%02d" % (n + 1)
        node_list.append({"index": n, "hostname": host,
                          "ranks": list(range(n * per, (n + 1) * per)),
                          "cores": 32, "pus": 64, "packages": 2,
                          "numa_nodes": 2, "llc_bytes": 1 << 25,
                          "memory_bytes": 1 << 39,
                          "cpu_model": "Test Xeon 8480"})
        for local in range(per):
            r = {"rank": n * per + local, "node": n, "hostname": host,
                 "local_rank": local, "pid": 4000 + n * per + local,
                 "cpu_binding": "%d-%d" % (8 * local, 8 * local + 7),
                 "bound_pus": 8, "cpu_threads": 8}
            if gpu:
                r["device"] = {"name": "NVIDIA H100 80GB HBM3",
                               "bus_id": "0000:%02x:00.0" % (0x19 + 0x10 * local),
                               "index": local, "memory_bytes": 85899345920}
            rank_list.append(r)
    doc = {
        "schema": "gcbench.results/2",
        "tool": {"name": "gcbench", "version": "0.1.0",
                 "git_revision": "fixture"},
        "run": {"id": name, "command": "burn",
                "command_line": ["gcbench", "burn", "--duration",
                                 str(nt * dt)],
                "start_time": "2026-11-30T09:00:00Z",
                "end_time": "2026-11-30T09:10:00Z", "status": "complete",
                "backend": "cuda" if gpu else "host",
                "backend_reason": "fixture", "ranks": ranks, "nodes": nodes},
        "options": {"duration": nt * dt, "interval": dt,
                    "output": name + ".json"},
        "software": {"mpi": "MPICH 4.0.2"},
        "nodes": node_list, "ranks": rank_list, "cases": [case],
        "skipped": [], "errors": [],
    }
    with open(os.path.join(HERE, name + ".json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def thermal(s, rng, from_i, factor):
    """A GPU throttled from interval from_i: hw_thermal, hotter, slower."""
    for i in range(from_i, len(s["figure"])):
        s["temp_c"][i] = round(87 + rng.gauss(0, 0.6), 1)
        s["throttle_reasons"][i] = 0x40
        was = s["sm_clock_mhz"][i]
        s["sm_clock_mhz"][i] = round(was * factor + rng.gauss(0, 6))
        s["figure"][i] = round(s["figure"][i] * s["sm_clock_mhz"][i] / was, 3)


def hog(s, rng, from_i, share):
    for i in range(from_i, len(s["figure"])):
        got = (1 - share) * (1 + rng.gauss(0, 0.01))
        s["cpu_util"][i] = round(got, 4)
        s["figure"][i] = round(s["figure"][i] * got, 3)


def main():
    rng = random.Random(20261130)
    document("burn-healthy-gpu6", 6, 3, 300, 2.0, True,
             healthy(rng, 6, 300, 2.0, True))
    document("burn-healthy-host5", 5, 1, 180, 1.0, False,
             healthy(rng, 5, 180, 1.0, False))
    document("burn-healthy-host2", 2, 1, 40, 1.0, False,
             healthy(rng, 2, 40, 1.0, False))
    rng = random.Random(4242)
    series = healthy(rng, 6, 300, 2.0, True)
    thermal(series[5], rng, 125, 0.82)  # 125 x 2 s = 4 min 10 s
    document("burn-gpu6-thermal", 6, 3, 300, 2.0, True, series)
    rng = random.Random(77)
    series = healthy(rng, 4, 60, 1.0, False)
    hog(series[1], rng, 10, 0.5)
    document("burn-host4-hog", 4, 1, 60, 1.0, False, series)


if __name__ == "__main__":
    main()
