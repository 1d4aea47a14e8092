#!/usr/bin/env python3
"""Independent fixture generator for the report's diagnosis (issue 26).

Writes a gcbench.results/2 document of an H100-SXM cluster, built from
docs/results-schema.md and docs/TOPOLOGY.md only (not from the project's own
generators or fixtures), with realistic noise and optional planted faults:

  gen_cluster.py --nodes 2 --seed 3 [--fault pcie-gen4] [--fault numa] ... OUT

Noise (each figure): a per-rank offset of +-1..3 % (uniform, fixed for the
rank over the run), per-iteration spread, and per-call OS noise of 0.5 % of
the call time (normal) plus rare daemon wake-ups (one call in 1000 of one
rank delayed by 20-60 us), which is what makes a rank look "late" once.

Faults (each names one component):
  pcie-gen4   node 0 GPU 1: link trained at gen4 at rest and under load
              (NVML pcie_gen 4, pcie_gen_max 5; H2D ~25 GB/s, D2H ~26)
  numa        node 0 ranks 2 and 3 bound to the other socket's cores; the
              document has no topology.placement (derivable from
              ranks[].cpu_binding and the GPU's local CPUs only)
  late        the last rank of node 1 arrives 30 us + 10 % late at every
              collective call
  nvlink      node 1 GPUs 4->5: one NVLink pair at 40 % of its peers
  slow-gpu    node 0 GPU 3 throttled (hw_thermal): GEMM 26 % low
  power-cap   the last node's 8 GPUs capped: GEMM 20 % low in 4 shapes
  flaky-gpu   node 1 GPU 2 (node 0 GPU 6 on a single node; on 2 nodes it is
              also in power-cap's node): intermittent HW slowdown, as an
              external power brake (or a marginal VRM / thermal sensor)
              asserting HW_SLOWDOWN that comes and goes: the GPU runs at
              full clock most of the time, but for a duty cycle of 20-30 %
              of the time (drawn once per document from the seed) the
              core clock is cut to 1/1.5..1/2.5. In every per-device case
              (GEMM, the GEMM sweep with power-cap, membw triad) that
              share of its iterations (round(duty * iterations), placed at
              random; each case runs at its own time) takes 1.5-2.5x as
              long (uniform per iteration: how deep the clock cut is and
              how much of the iteration it overlaps). The rank's median,
              and so its figure, is like its peers'; its mean, max, p99
              and stdev are not. NVML as sampled during the GEMM
              (m=8192) case shows it: throttle_reasons
              "hw_slowdown,hw_power_brake", slowed, SM clock min at the
              deepest cut and the time-weighted mean; temperature and the
              rest normal. The health snapshot (taken at rest, between
              events) is unremarkable. Copies (pcie), p2p and collectives
              are left as they are. Its randomness comes from its own
              generator, so the rest of the document is byte for byte the
              one without the fault.
  idle-gen1   not a fault: every GPU idles at gen1 (NVML and topology at rest)
              and trains up to gen5 under load

Deterministic: the same arguments give the same bytes.
"""
import argparse
import json
import math
import random
import sys

GPUS = 8
CORES_PER_SOCKET = 56  # 2 x Xeon Platinum 8480+, SMT on
LANE_GBPS = {1: 0.25, 2: 0.5, 3: 8 * 128 / 130 / 8, 4: 16 * 128 / 130 / 8,
             5: 32 * 128 / 130 / 8}
BUS = ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
       "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"]


def stats(samples):
    s = sorted(samples)
    n = len(s)
    mean = sum(s) / n
    var = sum((x - mean) ** 2 for x in s) / (n - 1) if n > 1 else 0.0
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    p99 = s[min(n - 1, int(math.ceil(0.99 * n)) - 1)]
    return {"n": n, "min": s[0], "median": med, "mean": mean, "max": s[-1],
            "stdev": math.sqrt(var), "p99": p99}


def cpus_of_socket(sock):
    a = sock * CORES_PER_SOCKET
    b = 2 * CORES_PER_SOCKET + a
    return "%d-%d,%d-%d" % (a, a + CORES_PER_SOCKET - 1, b,
                            b + CORES_PER_SOCKET - 1)


class Gen:
    def __init__(self, nodes, seed, faults, iters):
        self.rng = random.Random(seed * 7919 + nodes)
        # flaky-gpu: its own generator, so that the rest of the document
        # does not change with it
        self.frng = random.Random(seed * 104729 + nodes * 31 + 7)
        self.flaky_rank = GPUS + 2 if nodes >= 2 else 6
        self.flaky_duty = self.frng.uniform(0.20, 0.30)
        self.flaky_last = None
        self.nodes = nodes
        self.faults = set(faults)
        self.iters = iters
        self.nranks = nodes * GPUS
        # per-rank offsets, fixed for the run: +-1..3 %
        self.offset = [1 + self.rng.choice((-1, 1)) * self.rng.uniform(0.01, 0.03)
                       for _ in range(self.nranks)]
        self.cases = []

    # ---- ranks and nodes ------------------------------------------------
    def rank_binding(self, r):
        node, lr = divmod(r, GPUS)
        core = (lr // 4) * CORES_PER_SOCKET + (lr % 4) * 14
        if "numa" in self.faults and node == 0 and lr in (2, 3):
            # bound to the far socket: its second hardware threads, which
            # no other rank uses
            core = 2 * CORES_PER_SOCKET + CORES_PER_SOCKET + (lr % 4) * 14
        return "%d-%d" % (core, core + 13)

    def ranks(self):
        out = []
        for r in range(self.nranks):
            node, lr = divmod(r, GPUS)
            out.append({
                "rank": r, "node": node, "hostname": "h100-%02d" % node,
                "local_rank": lr, "pid": 41000 + r,
                "cpu_binding": self.rank_binding(r), "bound_pus": 14,
                "cpu_threads": 1,
                "device": {"name": "NVIDIA H100 80GB HBM3", "bus_id": BUS[lr],
                           "index": lr, "memory_bytes": 85520809984}})
        return out

    def link_gen(self, node, g, under_load):
        if "pcie-gen4" in self.faults and node == 0 and g == 1:
            return 4
        if "idle-gen1" in self.faults and not under_load:
            return 1
        return 5

    def topology(self, node):
        gpus = []
        for g in range(GPUS):
            gen = self.link_gen(node, g, False)
            gbps = LANE_GBPS[gen] * 16
            gpus.append({
                "index": g, "busid": BUS[g], "vendor": "NVIDIA",
                "pci_id": "10de:2330", "class": "0302",
                "model": "H100 SXM5 80GB", "arch": "Hopper",
                "numa": g // 4, "cpus": cpus_of_socket(g // 4),
                "link_gbps": gbps,
                "pcie_path": [
                    {"busid": BUS[g], "role": "device", "pci_id": "10de:2330",
                     "gbps": gbps, "gen": gen, "width": 16,
                     "link": "gen%d x16" % gen},
                    {"busid": BUS[g][:8] + "00.0", "role": "switch-down",
                     "pci_id": "1000:c030", "gbps": LANE_GBPS[5] * 16,
                     "gen": 5, "width": 16, "link": "gen5 x16"}],
                "pcie_switch": g // 2, "nvlinks": 18, "cpu_nvlinks": 0,
                "os_devices": "cuda%d" % g, "nearest_nic": {"nics": [g],
                                                              "class": "PIX"},
                "host_link": {"expected_gbps": gbps,
                              "basis": "PCIe gen%d x16 (%.2f GB/s)" %
                                       (gen, gbps)}})
        devs = ["GPU%d" % g for g in range(GPUS)]
        matrix = [["X" if a == b else "NV18" for b in range(GPUS)]
                  for a in range(GPUS)]
        pcie = [["X" if a == b else ("PIX" if a // 2 == b // 2 else
                                     "NODE" if a // 4 == b // 4 else "SYS")
                 for b in range(GPUS)] for a in range(GPUS)]
        exp = [[None if a == b else 450.0 for b in range(GPUS)]
               for a in range(GPUS)]
        return {
            "source": "live",
            "hypervisor": {"detected": False, "name": "", "evidence": ""},
            "gpus": gpus, "nics": [],
            "numa_nodes": [{"os_index": s, "cpus": cpus_of_socket(s),
                            "memory_bytes": 1099511627776} for s in (0, 1)],
            "pcie_switches": [],
            "paths": {"devices": devs, "matrix": matrix, "pcie": pcie,
                      "expected_gbps": exp},
            "facts": []}

    def health(self, node):
        out = []
        for g in range(GPUS):
            slowed = "slow-gpu" in self.faults and node == 0 and g == 3
            out.append({
                "ordinal": g, "name": "NVIDIA H100 80GB HBM3", "bus_id": BUS[g],
                "compute_capability": "9.0", "sm_count": 132,
                "memory_bytes": 85520809984, "l2_bytes": 52428800,
                "nvml": True, "nvml_why": "",
                "sm_clock_mhz": 1334 if slowed else 1980,
                "sm_clock_max_mhz": 1980, "mem_clock_mhz": 2619,
                "mem_clock_max_mhz": 2619,
                "pcie_gen": self.link_gen(node, g, False), "pcie_gen_max": 5,
                "pcie_width": 16, "pcie_width_max": 16,
                "nvlinks": 18, "nvlinks_active": 18, "ecc_enabled": True,
                "ecc_corrected": 0, "ecc_uncorrected": 0,
                "temp_c": 88 if slowed else 41, "power_w": 120.0,
                "power_limit_w": 700.0,
                "throttle": {"mask": 64 if slowed else 0,
                             "reasons": "hw_thermal" if slowed else "none",
                             "slowed": slowed},
                "driver": "550.54.15", "cuda_driver": "12.4",
                "cuda_runtime": "12.4", "nccl": "2.21.5"})
        return out

    def nodes_section(self):
        return [{"index": n, "hostname": "h100-%02d" % n,
                 "ranks": list(range(n * GPUS, (n + 1) * GPUS)),
                 "cores": 2 * CORES_PER_SOCKET, "pus": 4 * CORES_PER_SOCKET,
                 "packages": 2, "numa_nodes": 2, "llc_bytes": 220200960,
                 "memory_bytes": 2199023255552,
                 "cpu_model": "Intel(R) Xeon(R) Platinum 8480+",
                 "topology": self.topology(n), "gpus": self.health(n)}
                for n in range(self.nodes)]

    # ---- cases ----------------------------------------------------------
    def per_rank(self, times, work, scale, late=None, loop=None):
        """times: one list of samples per rank (seconds); late: the ranks'
        per-call lateness; loop: collectives' loop times (the figure time,
        results-schema.md "Statistics"), else the median sample."""
        cols = {"rank": [], "time_s": {k: [] for k in
                                        ("n", "min", "median", "mean", "max",
                                         "stdev", "p99")},
                "figure_time_s": [], "figure": {"median": [], "best": [],
                                                "worst": []},
                "validation": {"checked": [], "samples": [], "wrong": [],
                               "max_error": [], "tolerance": [],
                               "method": []}}
        if late is not None:
            cols["late_s"] = {k: [] for k in cols["time_s"]}
        for r, s in enumerate(times):
            st = stats(s)
            cols["rank"].append(r)
            for k, v in st.items():
                cols["time_s"][k].append(v)
            ft = st["median"] if loop is None else loop[r]
            cols["figure_time_s"].append(ft)
            cols["figure"]["median"].append(work / ft / scale)
            cols["figure"]["best"].append(work / st["min"] / scale)
            cols["figure"]["worst"].append(work / st["max"] / scale)
            v = cols["validation"]
            v["checked"].append(True)
            v["samples"].append(4096)
            v["wrong"].append(0)
            v["max_error"].append(1.5e-3)
            v["tolerance"].append(1e-2)
            v["method"].append("relative error vs fp32 reference")
            if late is not None:
                for k, x in stats(late[r]).items():
                    cols["late_s"][k].append(x)
        return cols

    def summary(self, pr, extra=None):
        fig = pr["figure"]["median"]
        ft = pr["figure_time_s"]
        n = len(fig)
        mean = sum(fig) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in fig) / (n - 1))
        tmean = sum(ft) / n
        s = {"ranks": n, "min": min(fig), "median": sorted(fig)[n // 2],
             "mean": mean, "max": max(fig), "stdev": sd,
             "min_rank": fig.index(min(fig)), "max_rank": fig.index(max(fig)),
             "imbalance": (max(ft) - tmean) / max(ft), "wrong": 0,
             "checked": True,
             "time_s": {"min": min(ft), "mean": tmean, "max": max(ft)}}
        s.update(extra or {})
        return s

    def add(self, bench, label, params, unit, work, counted, pr, extra=None,
            bus_factor=None):
        c = {"bench": bench, "backend": "cuda", "label": label,
             "params": params, "unit": unit, "work_per_op": work,
             "counted": counted, "iterations": self.iters, "warmup": 5,
             "summary": self.summary(pr, extra),
             "validation": {"checked": True, "passed": True, "wrong": 0},
             "per_rank": pr}
        if bus_factor is not None:
            c["bus_factor"] = bus_factor
        self.cases.append(c)

    def samples(self, t, r):
        # per-iteration spread 0.5 % plus rare daemon wake-ups
        out = []
        for _ in range(self.iters):
            x = t * (1 + abs(self.rng.gauss(0, 0.005)))
            if self.rng.random() < 0.0025:
                x += self.rng.uniform(40e-6, 200e-6)
            out.append(x)
        return out

    def flaky(self, s, r):
        """Samples s of rank r with flaky-gpu's HW slowdowns applied (the
        flaky rank only); records the case's slowdown for its telemetry."""
        if "flaky-gpu" not in self.faults or r != self.flaky_rank:
            return s
        k = int(round(self.flaky_duty * len(s)))
        slowed = self.frng.sample(range(len(s)), k)
        out = list(s)
        factors = []
        for i in sorted(slowed):
            f = self.frng.uniform(1.5, 2.5)
            factors.append(f)
            out[i] = s[i] * f
        # share of the case's time spent slowed; the clock during it
        q = sum(out[i] for i in slowed) / sum(out)
        self.flaky_last = (q, max(factors) if factors else 1.0,
                           sum(out[i] / s[i] for i in slowed) / k if k else 1.0)
        return out

    def gemm(self):
        m = 8192
        work = 2.0 * m * m * m
        times = []
        for r in range(self.nranks):
            node, lr = divmod(r, GPUS)
            rate = 760e12 * self.offset[r]
            if "slow-gpu" in self.faults and node == 0 and lr == 3:
                rate *= 0.74
            if "power-cap" in self.faults and node == self.nodes - 1:
                rate *= 0.80
            times.append(self.flaky(self.samples(work / rate, r), r))
        pr = self.per_rank(times, work, 1e9)
        if "slow-gpu" in self.faults or "flaky-gpu" in self.faults:
            t = pr.setdefault("telemetry", {})
            for k in ("samples", "sm_clock_mhz_min", "sm_clock_mhz_mean",
                      "sm_clock_mhz_max", "mem_clock_mhz_mean",
                      "power_w_mean", "power_w_max", "temp_c_max",
                      "throttle_reasons", "slowed"):
                t[k] = []
            for r in range(self.nranks):
                hot = "slow-gpu" in self.faults and r == 3
                vals = (50, 1334 if hot else 1980, 1334 if hot else 1975,
                        1400 if hot else 1980, 2619, 650.0, 699.0,
                        89.0 if hot else 62.0,
                        "hw_thermal" if hot else "none", hot)
                if "flaky-gpu" in self.faults and r == self.flaky_rank:
                    # clocks cut to 1/f while HW_SLOWDOWN is asserted (a
                    # share q of the case's time); power follows the clock
                    q, fmax, fmean = self.flaky_last
                    vals = (50, float(round(1980 / fmax / 15) * 15),
                            round(1975 * (1 - q) + 1975 / fmean * q, 1),
                            1980, 2619,
                            round(650 * (1 - q) + 650 / fmean * q, 1), 699.0,
                            63.0, "hw_slowdown,hw_power_brake", True)
                for k, v in zip(t, vals):
                    t[k].append(v)
        self.add("gemm", "gemm bf16 m=n=k=%d" % m,
                 {"dtype": "bf16", "m": m, "n": m, "k": m}, "GFLOP/s", work,
                 "2mnk flops", pr)

    def gemm_sweep(self):
        """Three more shapes, so that a node-wide fault spans cases."""
        for m in (4096, 12288, 16384):
            work = 2.0 * m * m * m
            times = []
            for r in range(self.nranks):
                node, lr = divmod(r, GPUS)
                rate = 740e12 * self.offset[r]
                if "power-cap" in self.faults and node == self.nodes - 1:
                    rate *= 0.80
                times.append(self.flaky(self.samples(work / rate, r), r))
            self.add("gemm", "gemm bf16 m=n=k=%d" % m,
                     {"dtype": "bf16", "m": m, "n": m, "k": m}, "GFLOP/s",
                     work, "2mnk flops", self.per_rank(times, work, 1e9))

    def membw(self):
        b = 1 << 30
        work = 3.0 * b
        times = [self.flaky(self.samples(work / (3000e9 * self.offset[r]), r),
                            r)
                 for r in range(self.nranks)]
        self.add("membw", "membw triad 1 GiB", {"kernel": "triad", "bytes": b},
                 "GB/s", work, "bytes read + written",
                 self.per_rank(times, work, 1e9))

    def pcie(self):
        for d in ("h2d", "d2h"):
            for size in (1 << 20, 1 << 28):
                times = []
                for r in range(self.nranks):
                    node, lr = divmod(r, GPUS)
                    gen = self.link_gen(node, lr, True)
                    eff = 0.84 if d == "h2d" else 0.87
                    rate = LANE_GBPS[gen] * 16 * eff * 1e9
                    rate *= 1 + self.rng.uniform(-0.01, 0.01)
                    if size < (1 << 24):
                        rate *= 0.6  # small copies: latency bound
                    times.append(self.samples(size / rate, r))
                self.add("pcie", "pcie %s pinned %d MiB" % (d, size >> 20),
                         {"direction": d, "memory": "pinned", "numa": "local",
                          "size": size}, "GB/s", float(size),
                         "bytes copied", self.per_rank(times, size, 1e9))

    def p2p(self):
        size = 1 << 28
        for src in range(GPUS):
            for dst in range(GPUS):
                if src == dst:
                    continue
                node_t = []
                for n in range(self.nodes):
                    rate = 370e9 * (1 + self.rng.uniform(-0.02, 0.02))
                    if "nvlink" in self.faults and n == 1 and \
                            (src, dst) in ((4, 5), (5, 4)):
                        rate *= 0.4
                    node_t.append(self.samples(size / rate, 0))
                # the measuring rank's figures repeated on every rank of the
                # node (GPU.md: "the other ranks of a node repeat ...")
                times = [node_t[r // GPUS] for r in range(self.nranks)]
                self.add("p2p", "ce uni %d->%d 256 MiB" % (src, dst),
                         {"mode": "ce", "direction": "uni", "src": src,
                          "dst": dst, "src_bus_id": BUS[src],
                          "dst_bus_id": BUS[dst], "bytes": size,
                          "path": "NV18"},
                         "GB/s", float(size), "bytes copied",
                         self.per_rank(times, size, 1e9))

    def comm_of(self, split, r):
        node, lr = divmod(r, GPUS)
        if split == "node":
            return node, GPUS
        if split == "cross":
            return lr, self.nodes
        return 0, self.nranks

    def coll_case(self, op, split, size):
        n = self.nranks
        comms = {}
        for r in range(n):
            comms.setdefault(self.comm_of(split, r)[0], []).append(r)
        csize = len(next(iter(comms.values())))
        factor = {"allreduce": 2.0 * (csize - 1) / csize,
                  "allgather": (csize - 1) / csize,
                  "reducescatter": (csize - 1) / csize,
                  "broadcast": 1.0}[op]
        intra = split == "node" or self.nodes == 1
        # small-message latency: NVLink within a node ~8 us; a 2-4 rank
        # ring over InfiniBand ~14 us; all ranks across nodes grows with
        # the ring (NCCL's 8 B allreduce over 16 H100s: ~25 us), over 3x
        # the node split's, which is why floors compare like with like
        if intra:
            lat = 8e-6
        elif split == "cross":
            lat = 14e-6
        else:
            lat = 18e-6 + 2e-6 * math.log2(n)
        bw = 360e9 if intra else 42e9
        base = lat + size * factor / bw
        times = [None] * n
        late = [None] * n
        loop = [None] * n
        for members in comms.values():
            # one communicator: its own loop time, shared by its members
            ct = base * (1 + self.rng.uniform(-0.03, 0.03))
            arrivals = [[0.0] * self.iters for _ in members]
            for it in range(self.iters):
                for k, r in enumerate(members):
                    a = abs(self.rng.gauss(0, 0.005 * ct))
                    if self.rng.random() < 0.001:
                        a += self.rng.uniform(20e-6, 60e-6)
                    if "late" in self.faults and r == n - 1:
                        a += 30e-6 + 0.10 * ct
                    arrivals[k][it] = a
                first = [min(arrivals[k][it] for k in range(len(members)))
                         for it in range(self.iters)]
                for k in range(len(members)):
                    arrivals[k][it] -= first[it]
            latest = [max(arrivals[k][it] for k in range(len(members)))
                      for it in range(self.iters)]
            # the timed loop, back to back: a rank delayed before a call
            # delays every member, so the members' loop times are one
            # figure (start and end skew aside), unlike the per-call pass
            wait = sum(latest) / self.iters
            for k, r in enumerate(members):
                # every member leaves when the last one arrived
                times[r] = [ct * (1 + self.rng.gauss(0, 0.005)) + latest[it] -
                            arrivals[k][it] for it in range(self.iters)]
                late[r] = arrivals[k]
                loop[r] = (ct + wait) * (1 + self.rng.gauss(0, 0.002))
        pr = self.per_rank(times, float(size), 1e9, late, loop)
        # the loop time (figure time): each rank's mean, loop-timed
        lm = pr["late_s"]["mean"]
        worst = max(range(n), key=lambda r: lm[r])
        tmean = sum(pr["figure_time_s"]) / n
        algbw = size / tmean / 1e9
        extra = {"algbw": algbw, "busbw": algbw * factor, "late_rank": worst,
                 "late_mean_s": lm[worst], "late_max_s":
                     pr["late_s"]["max"][worst]}
        params = {"op": op, "size": size, "count": size // 2, "type": "bf16",
                  "redop": "sum" if "reduce" in op else "none",
                  "root": 0 if op == "broadcast" else -1, "inplace": 0,
                  "split": split, "comm_size": csize}
        self.add("coll", "%s bf16 %s split=%s" % (op, size, split), params,
                 "GB/s", float(size), "bytes (S)", pr, extra, factor)

    def colls(self):
        sizes = [8 * 4 ** i for i in range(14)]  # 8 B .. 512 MiB
        for op in ("allreduce", "allgather", "reducescatter", "broadcast"):
            for split in ("none", "node", "cross"):
                for s in sizes:
                    self.coll_case(op, split, s)

    def document(self):
        self.gemm()
        if "power-cap" in self.faults:
            self.gemm_sweep()
        self.membw()
        self.pcie()
        self.p2p()
        self.colls()
        return {
            "schema": "gcbench.results/2",
            "tool": {"name": "gcbench", "version": "0.1.0",
                     "git_revision": "indepgen0001"},
            "run": {"id": "indep-%dn" % self.nodes, "command": "run",
                    "command_line": ["gcbench", "run", "--suite", "all"],
                    "start_time": "2026-12-01T10:00:00Z",
                    "end_time": "2026-12-01T10:42:00Z", "status": "complete",
                    "backend": "cuda", "backend_reason": "asked for",
                    "ranks": self.nranks, "nodes": self.nodes},
            "nodes": self.nodes_section(),
            "ranks": self.ranks(),
            "cases": self.cases, "skipped": [], "errors": []}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--nodes", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--fault", action="append", default=[],
                    choices=["pcie-gen4", "numa", "late", "nvlink",
                             "slow-gpu", "idle-gen1", "power-cap",
                             "flaky-gpu"])
    a = ap.parse_args()
    doc = Gen(a.nodes, a.seed, a.fault, a.iters).document()
    with (sys.stdout if a.out == "-" else open(a.out, "w")) as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
