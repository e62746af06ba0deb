#!/usr/bin/env python3
"""make bench: turn the guest's RESULT lines into build/bench/report.md
and charts (PNG, via gnuplot) for the scaling benchmarks.

    tests/bench/report.py BENCH_DIR

BENCH_DIR holds patched.txt (every benchmark, patched kernel), and
patched-2.txt, pristine.txt, pristine-2.txt (fork rates on the patched and
the unpatched kernel, same config, in alternating guests)."""
import os
import statistics
import subprocess
import sys
from collections import defaultdict

d = sys.argv[1]


def load(name):
    rows = []
    path = os.path.join(d, name)
    if not os.path.exists(path):
        return rows
    for line in open(path):
        parts = line.split()
        if len(parts) < 2 or parts[0] != "RESULT":
            continue
        kv = dict(p.split("=", 1) for p in parts[2:] if "=" in p)
        rows.append((parts[1], kv))
    return rows


patched = load("patched.txt")
# The fork-rate rows: every guest of each kernel (run.sh alternates them).
fork_patched = patched + load("patched-2.txt")
pristine = load("pristine.txt") + load("pristine-2.txt")


def series(rows, bench, key, value, **match):
    """{key value: [values]} of one benchmark."""
    out = defaultdict(list)
    for b, kv in rows:
        if b == bench and all(kv.get(k) == v for k, v in match.items()):
            out[kv.get(key)].append(float(kv[value]))
    return out


def med(v):
    return statistics.median(v) if v else float("nan")


def spread(v):
    """Spread of the rounds: (max - min) / median, in percent."""
    if len(v) < 2:
        return "n/a"
    return "±%.0f%%" % (50.0 * (max(v) - min(v)) / med(v))


def verdict(ok):
    return "met" if ok else "**missed**"


def release(rows):
    for b, kv in rows:
        if b == "kernel":
            return kv.get("release", "?")
    return "?"


md = []
md.append("# pspace benchmarks\n")
md.append("Measured in one QEMU (TCG) guest per kernel; ratios compare runs made side by side, "
          "so they do not depend on this machine's speed. Median of the rounds, spread = "
          "half the range over the median.\n")
md.append("Patched kernel: `%s`; unpatched (same config): `%s`.\n" % (release(patched), release(pristine)))
summary = []

# 1. create and reap
c = series(patched, "create", "kind", "ns")
if c:
    md.append("## 1. Create and reap (ns per create + reap)\n")
    md.append("| kind | median | spread | rounds |\n|---|---:|---:|---:|")
    for k in ("fork", "newpid", "npspace"):
        md.append("| %s | %.0f | %s | %d |" % (k, med(c[k]), spread(c[k]), len(c[k])))
    r1 = med(c["npspace"]) / med(c["newpid"])
    r2 = med(c["npspace"]) / med(c["fork"])
    md.append("\n| ratio | measured | goal | |\n|---|---:|---:|---|")
    md.append("| pspace / CLONE_NEWPID | %.2f | ≤ 1.10 | %s |" % (r1, verdict(r1 <= 1.10)))
    md.append("| pspace / fork | %.2f | ≤ 3 | %s |\n" % (r2, verdict(r2 <= 3)))
    summary += [("create: pspace / NEWPID", r1, "≤ 1.10", r1 <= 1.10),
                ("create: pspace / fork", r2, "≤ 3", r2 <= 3)]

# 2. kill(-wid)
ks = series(patched, "killwid_system", "tasks", "ns")
kz = series(patched, "killwid_size", "procs", "ns")
if ks:
    md.append("## 2. kill(-wid) (ns per call)\n")
    md.append("A pspace of 10 processes, with unrelated tasks elsewhere on the system:\n")
    md.append("| unrelated tasks | median | spread | × at 0 |\n|---:|---:|---:|---:|")
    base = med(ks["0"])
    for t in sorted(ks, key=int):
        md.append("| %s | %.0f | %s | %.2f |" % (t, med(ks[t]), spread(ks[t]), med(ks[t]) / base))
    r = med(ks["5000"]) / base
    md.append("\nGoal: flat, ≤ 1.2 × at 5,000 unrelated tasks: %.2f, %s.\n" % (r, verdict(r <= 1.2)))
    summary.append(("kill(-wid): 5,000 unrelated / 0", r, "≤ 1.2", r <= 1.2))
if kz:
    md.append("Pspaces of growing size:\n")
    md.append("| processes in the pspace | median | spread | ns per process |\n|---:|---:|---:|---:|")
    for p in sorted(kz, key=int):
        md.append("| %s | %.0f | %s | %.0f |" % (p, med(kz[p]), spread(kz[p]), med(kz[p]) / int(p)))
    xs = sorted(int(p) for p in kz)
    ys = [med(kz[str(x)]) for x in xs]
    # Least-squares line through the medians, and how well it fits (R²).
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    icpt = my - slope * mx
    ss_res = sum((y - (icpt + slope * x)) ** 2 for x, y in zip(xs, ys))
    ss_tot = sum((y - my) ** 2 for y in ys)
    r2 = 1 - ss_res / ss_tot if ss_tot else float("nan")
    md.append("\nGoal: linear. A straight line through the medians: %.0f ns per process plus %.0f ns, "
              "R² = %.4f (1 = exactly linear): %s.\n" % (slope, icpt, r2, verdict(r2 >= 0.98)))
    summary.append(("kill(-wid): linear in pspace size (R² of a line)", r2, "≥ 0.98", r2 >= 0.98))
    md.append("![kill(-wid) scaling](killwid.png)\n")

# 3. launchers
e = series(patched, "exec", "kind", "ns")
if e:
    md.append("## 3. Start to exit of `/bin/true` (ms)\n")
    md.append("| launcher | median | spread | rounds |\n|---|---:|---:|---:|")
    for k in ("pspace-run", "unshare", "chroot"):
        if e.get(k):
            md.append("| %s | %.1f | %s | %d |" % (k, med(e[k]) / 1e6, spread(e[k]), len(e[k])))
    if e.get("unshare") and e.get("chroot"):
        r1 = med(e["pspace-run"]) / med(e["unshare"])
        r2 = med(e["pspace-run"]) / med(e["chroot"])
        md.append("\n| ratio | measured | goal | |\n|---|---:|---:|---|")
        md.append("| pspace-run / unshare | %.2f | ≤ 1 | %s |" % (r1, verdict(r1 <= 1)))
        md.append("| pspace-run / chroot | %.2f | ≤ 2 | %s |\n" % (r2, verdict(r2 <= 2)))
        summary += [("pspace-run / unshare", r1, "≤ 1", r1 <= 1),
                    ("pspace-run / chroot", r2, "≤ 2", r2 <= 2)]
    bad = [kv for b, kv in patched if b == "exec" and kv.get("status") != "0"]
    if bad:
        md.append("Note: %d launcher runs did not exit 0: %s\n" % (len(bad), sorted({kv["kind"] for kv in bad})))

# 4. fork rate, patched vs unpatched
fp = series(fork_patched, "forkrate", "pid_max", "ns")
fu = series(pristine, "forkrate", "pid_max", "ns")
if fp:
    md.append("## 4. fork + exit + wait, patched vs unpatched (ns per fork)\n")
    md.append("| pid_max | patched | spread | unpatched | spread | throughput ratio |\n|---|---:|---:|---:|---:|---:|")
    for k in ("default", "1000"):
        if fu.get(k):
            r = med(fu[k]) / med(fp[k])
            md.append("| %s | %.0f | %s | %.0f | %s | %.3f |" % (k, med(fp[k]), spread(fp[k]),
                      med(fu[k]), spread(fu[k]), r))
            summary.append(("fork throughput, pid_max %s: patched / unpatched" % k, r, "≥ 0.98", r >= 0.98))
        else:
            md.append("| %s | %.0f | %s | – | – | – |" % (k, med(fp[k]), spread(fp[k])))
    md.append("\nGoal: ≥ 0.98 × the unpatched kernel's throughput. Rounds from four guests booted "
              "patched, unpatched, patched, unpatched; the ratio still carries this machine's "
              "drift between guests, about as large as the spreads shown.\n")

# 5. memory
m = series(patched, "memory", "kind", "kernel_bytes")
mu = series(patched, "memory", "kind", "used_bytes")
if m:
    md.append("## 5. Memory per idle namespace (1,000 of each, with their leader process)\n")
    md.append("| kind | kernel (unreclaimable slab + stacks + page tables) | spread | all used memory | spread |\n|---|---:|---:|---:|---:|")
    for k in ("newpid", "npspace"):
        md.append("| %s | %.0f B | %s | %.0f B | %s |" % (k, med(m[k]), spread(m[k]), med(mu[k]), spread(mu[k])))
    r = med(m["npspace"]) / med(m["newpid"])
    md.append("\nGoal: pspace ≤ 1.05 × CLONE_NEWPID (kernel memory): %.3f, %s.\n" % (r, verdict(r <= 1.05)))
    summary.append(("memory: pspace / NEWPID", r, "≤ 1.05", r <= 1.05))

# 6. boot
b = [float(kv["seconds"]) for k, kv in patched if k == "boot"]
if b:
    states = sorted({kv.get("state") for k, kv in patched if k == "boot"})
    md.append("## 6. Container boot under TCG\n")
    md.append("`pspace-run /srv/root /sbin/init` to `systemctl is-system-running` = %s: "
              "median %.1f s over %d boots (%s). No goal; TCG is far slower than hardware.\n"
              % ("/".join(states), med(b), len(b), ", ".join("%.1f" % x for x in b)))
    summary.append(("container boot (s, TCG)", med(b), "–", True))

head = ["## Summary\n", "| measure | value | goal | |", "|---|---:|---:|---|"]
for name, v, goal, ok in summary:
    fmt = "%.4f" if "R²" in name else "%.2f"
    head.append(("| %s | " + fmt + " | %s | %s |") % (name, v, goal, "–" if goal == "–" else verdict(ok)))
head.append("")
md = md[:3] + head + md[3:]
open(os.path.join(d, "report.md"), "w").write("\n".join(md) + "\n")

# The chart: kill(-wid) against system size and against pspace size.
if ks and kz:
    dat = os.path.join(d, "killwid.dat")
    with open(dat, "w") as f:
        for t in sorted(ks, key=int):
            f.write("%s %.0f\n" % (t, med(ks[t])))
        f.write("\n\n")
        for p in sorted(kz, key=int):
            f.write("%s %.0f\n" % (p, med(kz[p])))
    gp = """set terminal pngcairo size 900,420 font ",10"
set output '%s'
set multiplot layout 1,2
set grid
set key off
set xlabel 'unrelated tasks on the system'
set ylabel 'µs per kill(-wid)'
set yrange [0:*]
set title 'pspace of 10 processes'
plot '%s' index 0 using 1:($2/1000) with linespoints pt 7 lw 2
set xlabel 'processes in the pspace'
set title 'growing pspace'
plot '%s' index 1 using 1:($2/1000) with linespoints pt 7 lw 2
unset multiplot
""" % (os.path.join(d, "killwid.png"), dat, dat)
    try:
        subprocess.run(["gnuplot"], input=gp.encode(), check=True)
    except (OSError, subprocess.CalledProcessError) as err:
        print("report: no chart (%s); install gnuplot-nox" % err, file=sys.stderr)

print(open(os.path.join(d, "report.md")).read())
