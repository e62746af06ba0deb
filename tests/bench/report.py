#!/usr/bin/env python3
"""make bench: turn the guests' RESULT lines into build/bench/report.md and
charts (PNG, via gnuplot) for the scaling rows.

    tests/bench/report.py BENCH_DIR

BENCH_DIR holds patched.txt (every benchmark, patched kernel), then
pristine-N.txt and patched-N.txt (fork rates on the unpatched and the
patched kernel, same config, in alternating guests), icount-pristine-N.txt
and icount-patched-N.txt (the same in guests whose clock counts
instructions) and host.txt (how busy the host was around each guest).  The report states every number with its
spread, ratio and goal; it never fails on a number."""
import glob
import os
import random
import statistics
import subprocess
import sys
from collections import defaultdict

d = sys.argv[1]


def load(path):
    rows = []
    if not os.path.exists(path):
        return rows
    for line in open(path):
        parts = line.split()
        if len(parts) < 2 or parts[0] != "RESULT":
            continue
        kv = dict(p.split("=", 1) for p in parts[2:] if "=" in p)
        kv["_guest"] = os.path.basename(path)[:-4]
        rows.append((parts[1], kv))
    return rows


def guest_key(path):
    """patched.txt, then patched-2.txt before patched-10.txt."""
    n = os.path.basename(path)[:-4].rsplit("-", 1)
    return (n[0], int(n[1]) if len(n) == 2 and n[1].isdigit() else -1, path)


def guests(prefix):
    return sorted((p for p in glob.glob(os.path.join(d, prefix + "*.txt"))), key=guest_key)


patched = load(os.path.join(d, "patched.txt"))
fork_patched = [r for p in guests("patched") for r in load(p)]
pristine = [r for p in guests("pristine") for r in load(p)]
host = load(os.path.join(d, "host.txt"))


def num(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if x >= 0 else None


def series(rows, bench, key, value, **match):
    """{key value: [values]} of one benchmark (failed rounds left out)."""
    out = defaultdict(list)
    for b, kv in rows:
        if b == bench and all(kv.get(k) == v for k, v in match.items()):
            x = num(kv.get(value))
            if x is not None:
                out[kv.get(key)].append(x)
    return out


def med(v):
    return statistics.median(v) if v else float("nan")


def spread(v):
    """Spread of the rounds: (max - min) / 2 / median, in percent."""
    if len(v) < 2:
        return "n/a"
    return "±%.0f%%" % (50.0 * (max(v) - min(v)) / med(v))


def ratio_ci(a, b, n=2000):
    """Ratio of medians a/b and its 5-95 % bootstrap interval."""
    if not a or not b:
        return float("nan"), float("nan"), float("nan")
    rnd = random.Random(1)
    rs = sorted(med([rnd.choice(a) for _ in a]) / med([rnd.choice(b) for _ in b]) for _ in range(n))
    return med(a) / med(b), rs[int(0.05 * n)], rs[int(0.95 * n) - 1]


def fmt_ratio(a, b):
    r, lo, hi = ratio_ci(a, b)
    return r, "%.3f" % r, "%.3f–%.3f" % (lo, hi)


def verdict(ok):
    return "met" if ok else "**missed**"


def sizes_of(s):
    return sorted(s, key=lambda k: int(k))


def first(rows, bench, key, default="?"):
    for b, kv in rows:
        if b == bench:
            return kv.get(key, default)
    return default


md = ["# pspace benchmarks\n"]
quick = first(patched, "kernel", "quick", "0") == "1"
md.append("Measured in QEMU guests (TCG unless PSPACE_KVM=1), 2 vCPUs, 2 GiB (the instruction-clock "
          "guests of section 5b: one vCPU). Every row but the "
          "patched/unpatched fork rows compares runs made side by side in one guest, interleaved, "
          "the order rotated by round, so they do not depend on this machine's speed; the fork "
          "rows compare guests booted in pairs (ABBA order). Median of the rounds; spread = half "
          "the range over the median; the ratio's interval is a 5–95 %% bootstrap over the rounds "
          "of both sides.%s\n"
          % (" **Reduced run (BENCH_QUICK=1): smaller sizes and fewer rounds.**" if quick else ""))
md.append("Patched kernel: `%s`; unpatched (same config): `%s`. Anchors: %s.\n" % (
    first(patched, "kernel", "release"), first(pristine, "kernel", "release"),
    ", ".join("%s %s" % (kv.get("tool"), kv.get("v")) for b, kv in patched if b == "version")))
summary = []
warnings = []

# Both kernels say the same release: each guest says whether it runs the
# series (pspace_fork_start in kallsyms); a guest on the wrong kernel
# would make a patched/unpatched ratio of 1.
mixed = []
for p in sorted(glob.glob(os.path.join(d, "*.txt"))):
    g = os.path.basename(p)[:-4]
    said = first(load(p), "kernel", "patched", None)
    want = "0" if "pristine" in g else "1"
    if said is not None and said != want:
        mixed.append(g)
if mixed:
    md.append("**Warning: these guests ran the other kernel than their name says: %s.**\n" % ", ".join(mixed))

# How busy was the machine?  The host's idle share while each guest ran,
# and the spread of the calibration loop inside each guest.
if host:
    md.append("## Machine load\n")
    md.append("| guest | seconds | host load (1 min) | host CPU idle | calibration loop spread |\n"
              "|---|---:|---:|---:|---:|")
    last = {}	# a guest's last row only (BENCH_ONLY runs add rows)
    for b, kv in host:
        if b in ("host", "incomplete"):
            last[(b, kv.get("guest"))] = kv
    for (b, _), kv in last.items():
        if b == "incomplete":
            warnings.append("%s: **did not finish** (timed out; see %s)" % (kv.get("guest"), kv.get("console")))
            continue
        if b != "host":
            continue
        g = kv.get("guest")
        cal = [num(x.get("calib_ns")) for bb, x in load(os.path.join(d, g + ".txt"))
               if bb in ("forkrate", "forkdepth") and num(x.get("calib_ns"))]
        idle = float(kv.get("idle", "nan"))
        sp = 50.0 * (max(cal) - min(cal)) / med(cal) if len(cal) > 1 else 0.0
        md.append("| %s | %s | %s | %.0f%% | ±%.*f%% |" % (g, kv.get("seconds"), kv.get("load1"), 100 * idle,
                                                            2 if g.startswith("icount-") else 0, sp))
        if g.startswith("icount-"):
            # An instruction clock: the loop takes the same time always,
            # unless something else ran in it.
            if sp > 0.5:
                warnings.append("%s: calibration loop varied by ±%.1f%% on an instruction clock" % (g, sp))
        elif idle < 0.25 or sp > 10:
            warnings.append("%s: host CPU idle %.0f%%, calibration spread ±%.0f%%" % (g, 100 * idle, sp))
    md.append("")
    if warnings:
        md.append("**Warning: the machine was busy** while these guests ran (host idle < 25 % or the "
                  "calibration loop varied by more than ±10 %): " + "; ".join(warnings) +
                  ". Timings of those guests carry the load; the in-guest ratios less so.\n")
failed = [kv for b, kv in patched if b == "failed"]
if failed:
    md.append("**Launchers that failed their trial run** (their rows time an error): " +
              "; ".join("%s (exit %s)" % (kv.get("launcher"), kv.get("rc")) for kv in failed) + ".\n")


def chart(name, title, xlabel, ylabel, sets, logx=True):
    """sets: [(label, {x: y})]; a PNG with one line per set."""
    dat = os.path.join(d, name + ".dat")
    with open(dat, "w") as f:
        for label, pts in sets:
            for x in sorted(pts):
                f.write("%s %g\n" % (x, pts[x]))
            f.write("\n\n")
    plots = ", ".join("'%s' index %d using 1:2 with linespoints pt 7 lw 2 title '%s'" % (dat, i, lab)
                      for i, (lab, _) in enumerate(sets))
    gp = """set terminal pngcairo size 800,480 font ",10"
set output '%s'
set grid
set key top left
%s
set xlabel '%s'
set ylabel '%s'
set title '%s'
set yrange [0:*]
plot %s
""" % (os.path.join(d, name + ".png"), "set logscale x" if logx else "", xlabel, ylabel, title, plots)
    try:
        subprocess.run(["gnuplot"], input=gp.encode(), check=True)
        md.append("![%s](%s.png)\n" % (title, name))
    except (OSError, subprocess.CalledProcessError) as err:
        print("report: no chart %s (%s); install gnuplot-nox" % (name, err), file=sys.stderr)


def versus(title, bench, kinds, goal, value="ns", unit_div=1e6, unit="ms", chart_name=None):
    """A table per size: kinds[0] (pspace) against kinds[1] (the anchor)."""
    s = {k: series(patched, bench, "procs", value, kind=k) for k in kinds}
    if not s[kinds[0]]:
        return
    md.append("| processes | %s | spread | %s | spread | ratio | 5–95 %% | goal | |\n"
              "|---:|---:|---:|---:|---:|---:|---:|---:|---|" % (kinds[0] + " (" + unit + ")", kinds[1] + " (" + unit + ")"))
    for n in sizes_of(s[kinds[0]]):
        a, b = s[kinds[0]][n], s[kinds[1]].get(n, [])
        r, rs, ci = fmt_ratio(a, b)
        md.append("| %s | %.2f | %s | %.2f | %s | %s | %s | ≤ %.1f | %s |" % (
            n, med(a) / unit_div, spread(a), med(b) / unit_div, spread(b), rs, ci, goal, verdict(r <= goal)))
        summary.append(("%s, %s processes: %s / %s" % (title, n, kinds[0], kinds[1]), r, "≤ %.1f" % goal, r <= goal))
    md.append("")
    if chart_name:
        chart(chart_name, title, "processes", unit,
              [(k, {int(n): med(v) / unit_div for n, v in s[k].items()}) for k in kinds])


# 1. teardown
if series(patched, "teardown", "procs", "ns"):
    md.append("## 1. Tear down a container of N processes, until all are reaped\n")
    md.append("pspace: `kill(-wid, SIGKILL)`, then `waitpid(wid)`; anchor: `cgroup.kill` on a "
              "cgroup holding the same tree (a `CLONE_NEWPID` init with N − 1 children), then "
              "`waitpid()` of its init (a pid-namespace init is reaped after all the others).\n")
    versus("teardown", "teardown", ("pspace", "cgroup.kill"), 1.0, chart_name="teardown")

# 2. freeze
if series(patched, "freeze", "procs", "ns"):
    md.append("## 2. Freeze a container of N processes (all stopped), and thaw it\n")
    md.append("pspace: `kill(-wid, SIGSTOP)` until every process shows state T in /proc, "
              "`kill(-wid, SIGCONT)` until none does; anchor: `cgroup.freeze` 1 until "
              "`cgroup.events` says `frozen 1`, 0 until `frozen 0`. The two completion checks "
              "differ (a /proc scan against one file), the scan is the pspace's cost.\n")
    md.append("Freeze:\n")
    versus("freeze", "freeze", ("pspace", "cgroup.freeze"), 1.0, chart_name="freeze")
    md.append("Thaw:\n")
    versus("thaw", "freeze", ("pspace", "cgroup.freeze"), 1.0, value="thaw_ns")
    sc = series(patched, "freeze", "procs", "scan_ns", kind="pspace")
    fz = series(patched, "freeze", "procs", "ns", kind="pspace")
    fc = series(patched, "freeze", "procs", "ns", kind="cgroup.freeze")
    if sc:
        md.append("What the completion check costs: one scan of the already stopped tree's /proc "
                  "entries, and the freeze less one scan against the anchor (the signal's own cost, "
                  "roughly: the check polls every 50 µs on both sides):\n")
        md.append("| processes | one scan (ms) | spread | (freeze − scan) / cgroup.freeze |\n"
                  "|---:|---:|---:|---:|")
        for n in sizes_of(sc):
            if fz.get(n) and fc.get(n):
                r = (med(fz[n]) - med(sc[n])) / med(fc[n])
                md.append("| %s | %.2f | %s | %.2f |" % (n, med(sc[n]) / 1e6, spread(sc[n]), r))
        md.append("")

# 3. boot
boots = [kv for b, kv in patched if b == "boot"]
if boots:
    md.append("## 3. Boot Debian's systemd to running, then halt (s, TCG)\n")
    md.append("| launcher | boot median | spread | halt median | spread | states | failed units | boots |\n"
              "|---|---:|---:|---:|---:|---|---|---:|")
    bs, hs = {}, {}
    warm = [kv for kv in boots if kv.get("round") == "0"]
    boots = [kv for kv in boots if kv.get("round") != "0"]
    for k in ("pspace-run", "systemd-nspawn"):
        # a boot that never reached running/degraded is no time of a boot
        rows = [kv for kv in boots if kv.get("kind", "pspace-run") == k and
                kv.get("state", "").split(",")[0] in ("running", "degraded")]
        if not rows:
            continue
        bs[k] = [float(kv["seconds"]) for kv in rows]
        hs[k] = [float(kv.get("halt_seconds", "nan")) for kv in rows]
        md.append("| %s | %.1f | %s | %.1f | %s | %s | %s | %d |" % (
            k, med(bs[k]), spread(bs[k]), med(hs[k]), spread(hs[k]),
            "/".join(sorted({kv.get("state") for kv in rows})),
            ", ".join(kv.get("failed_units", "?") for kv in rows), len(rows)))
    if len(bs) == 2:
        for what, s in (("boot", bs), ("halt", hs)):
            r, rs, ci = fmt_ratio(s["pspace-run"], s["systemd-nspawn"])
            md.append("\n%s: pspace-run / systemd-nspawn = %s (%s); goal ≤ 1.0: %s." % (what, rs, ci, verdict(r <= 1)))
            summary.append(("%s: pspace-run / systemd-nspawn -b" % what, r, "≤ 1.0", r <= 1))
        bad = [kv for kv in boots + warm if kv.get("failed_units") not in ("0",) or kv.get("state") != "running"]
        md.append("\nGoal: 0 failed units for both, state `running` (every boot, the untimed first "
                  "boot of each too: %d boots): %s.\n" % (len(boots) + len(warm), verdict(not bad)))
        summary.append(("boot: failed units (both launchers)", float(len(bad)), "0", not bad))
    md.append("")

# 4. launchers
e = series(patched, "exec", "kind", "ns", status="0")
if e:
    md.append("## 4. Start to exit of `/bin/true` in a container (ms)\n")
    md.append("| launcher | median | spread | rounds | pspace-run / this | 5–95 % |\n|---|---:|---:|---:|---:|---:|")
    for k in ("pspace-run", "bwrap", "unshare", "systemd-nspawn", "chroot"):
        if e.get(k):
            r, rs, ci = fmt_ratio(e["pspace-run"], e[k])
            md.append("| %s | %.1f | %s | %d | %s | %s |" % (k, med(e[k]) / 1e6, spread(e[k]), len(e[k]), rs, ci))
    md.append("\nbwrap: `--unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try --die-with-parent "
              "--bind ROOT / --proc /proc --dev /dev --tmpfs /run --ro-bind /sys /sys`; unshare: "
              "`-fp --mount-proc -R ROOT`; systemd-nspawn: `-q --register=no --keep-unit --link-journal=no -D ROOT` "
              "(no host systemd in the guest: no machined, no scope).\n")
    if e.get("bwrap"):
        r = med(e["pspace-run"]) / med(e["bwrap"])
        md.append("Goal: pspace-run ≤ 1.0 × bwrap: %.2f, %s.\n" % (r, verdict(r <= 1)))
        summary.append(("start to exit: pspace-run / bwrap", r, "≤ 1.0", r <= 1))
    if e.get("podman-crun") and e.get("podman-pspace-run"):
        r, rs, ci = fmt_ratio(e["podman-pspace-run"], e["podman-crun"])
        vers = {kv.get("tool"): kv.get("v", "unknown") for b, kv in patched if b == "version"}
        md.append("Through an engine: `podman run --rm IMAGE /bin/true` (podman %s; IMAGE: `/srv/root` "
                  "imported, `--network none`, cgroupfs):\n" % vers.get("podman", "unknown"))
        md.append("| runtime | median (ms) | spread | rounds |\n|---|---:|---:|---:|")
        for k, label in (("podman-crun", "crun %s" % vers.get("crun", "unknown")),
                         ("podman-pspace-run", "pspace-run")):
            md.append("| %s | %.1f | %s | %d |" % (label, med(e[k]) / 1e6, spread(e[k]), len(e[k])))
        md.append("\npspace-run / crun under podman: %s (%s).\n" % (rs, ci))
        summary.append(("podman run --rm: pspace-run / crun", r, "–", True))
    bad = [kv for b, kv in patched if b == "exec" and kv.get("status") != "0"]
    if bad:
        md.append("Note: %d launcher runs did not exit 0 (left out of the medians): %s\n"
                  % (len(bad), sorted({kv["kind"] for kv in bad})))

# 5. fork rates
fp = series(fork_patched, "forkrate", "pid_max", "ns")
fu = series(pristine, "forkrate", "pid_max", "ns")
dn = series(fork_patched, "forkdepth", "depth", "ns", kind="newpid")
dp = series(fork_patched, "forkdepth", "depth", "ns", kind="npspace")
du = series(pristine, "forkdepth", "depth", "ns", kind="newpid")
if fp:
    md.append("## 5. fork + exit + wait (ns per fork), patched vs unpatched, at depth\n")
    md.append("Rounds from every guest: patched (all benchmarks), then pairs unpatched/patched "
              "booted alternately (%d patched, %d unpatched guests). Time ratios: > 1 is slower.\n"
              % (len(guests("patched")), len(guests("pristine"))))
    md.append("| where | patched | spread | unpatched | spread | patched / unpatched | 5–95 % | goal | |\n"
              "|---|---:|---:|---:|---:|---:|---:|---:|---|")
    rows = [("fork, pid_max %s" % k, fp.get(k, []), fu.get(k, [])) for k in ("default", "1000")]
    rows += [("CLONE_NEWPID depth %s" % k, dn[k], du.get(k, [])) for k in sizes_of(dn)]
    for name, a, b in rows:
        if not b:
            md.append("| %s | %.0f | %s | – | – | – | – | ≤ 1.02 | |" % (name, med(a), spread(a)))
            continue
        r, rs, ci = fmt_ratio(a, b)
        md.append("| %s | %.0f | %s | %.0f | %s | %s | %s | ≤ 1.02 | %s |" % (
            name, med(a), spread(a), med(b), spread(b), rs, ci, verdict(r <= 1.02)))
    # The ratio of each pair of guests booted one after the other: the
    # spread between boots, which pooling the rounds hides.
    pairs = []
    for pg in guests("pristine"):
        i = os.path.basename(pg)[len("pristine-"):-4]
        q = os.path.join(d, "patched-%s.txt" % i)
        if os.path.exists(q):
            pairs.append((i, load(q), load(pg)))
    if pairs:
        md.append("\nThe same ratio per pair of guests (patched-i / unpatched-i, booted one after the "
                  "other; the all-benchmark patched guest left out), and its median over the pairs:\n")
        md.append("| where | " + " | ".join("pair %s" % i for i, _, _ in pairs) +
                  " | median | range | goal | |\n|---|" + "---:|" * (len(pairs) + 2) + "---:|---|")
        keys = [("fork, pid_max %s" % k, "forkrate", "pid_max", k, {}) for k in ("default", "1000")]
        keys += [("CLONE_NEWPID depth %s" % k, "forkdepth", "depth", k, {"kind": "newpid"}) for k in sizes_of(dn)]
        for name, bench, key, k, match in keys:
            rs = []
            for i, pa, un in pairs:
                a = series(pa, bench, key, "ns", **match).get(k)
                b = series(un, bench, key, "ns", **match).get(k)
                if a and b:
                    rs.append(med(a) / med(b))
            if rs:
                r = med(rs)
                md.append("| %s | %s | %.3f | %.3f–%.3f | ≤ 1.02 | %s |" % (
                    name, " | ".join("%.3f" % x for x in rs), r, min(rs), max(rs), verdict(r <= 1.02)))
                summary.append(("fork (wall clock): %s, patched / unpatched (median of %d pairs)" % (name, len(rs)),
                                r, "≤ 1.02", r <= 1.02))
    if dp:
        # the guest that ran both kinds, interleaved; and against the unpatched kernel's NEWPID
        ds = series(patched, "forkdepth", "depth", "ns", kind="newpid")
        md.append("\nIn a pspace against `CLONE_NEWPID` at the same depth (the all-benchmark patched "
                  "guest, interleaved), and against `CLONE_NEWPID` on the unpatched kernel:\n")
        md.append("| depth | pspace | spread | CLONE_NEWPID | spread | ratio | 5–95 % | goal | | "
                  "unpatched CLONE_NEWPID | pspace / it |\n"
                  "|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|")
        for k in sizes_of(dp):
            r, rs, ci = fmt_ratio(dp[k], ds.get(k, []))
            u = du.get(k, [])
            md.append("| %s | %.0f | %s | %.0f | %s | %s | %s | ≤ 1.02 | %s | %s | %s |" % (
                k, med(dp[k]), spread(dp[k]), med(ds.get(k, [])), spread(ds.get(k, [])), rs, ci,
                verdict(r <= 1.02), "%.0f" % med(u) if u else "–",
                "%.3f" % (med(dp[k]) / med(u)) if u else "–"))
            summary.append(("fork at depth %s: pspace / CLONE_NEWPID" % k, r, "≤ 1.02", r <= 1.02))
        md.append("")
        sets = [("pspace (patched)", {int(k): med(v) / 1e3 for k, v in dp.items()}),
                ("CLONE_NEWPID (patched)", {int(k): med(v) / 1e3 for k, v in dn.items()})]
        if du:
            sets.append(("CLONE_NEWPID (unpatched)", {int(k): med(v) / 1e3 for k, v in du.items()}))
        chart("forkdepth", "fork+exit+wait at nesting depth", "depth", "µs per fork", sets, logx=False)

# 5b. what the fork path runs: kprobe counts
fpk = [(kv, g) for g, rows in (("patched", patched), ("unpatched", pristine)) for b, kv in rows if b == "forkpath"]
if fpk:
    md.append("### What fork + exit + wait runs, counted with kprobes (calls per fork)\n")
    funcs = []
    for kv, g in fpk:
        if kv.get("func") and kv["func"] not in funcs:
            funcs.append(kv["func"])
    md.append("| kernel | where | " + " | ".join("`%s`" % f for f in funcs) + " |\n|---|---|" + "---:|" * len(funcs))
    seen = {}
    for kv, g in fpk:
        if "per_fork" in kv:
            seen.setdefault((g, kv["kind"], kv["depth"]), {}).setdefault(kv["func"], kv["per_fork"])
    absent = {(g, kv["func"]) for kv, g in fpk if kv.get("absent")}
    for (g, kind, depth), v in seen.items():
        md.append("| %s | %s depth %s | %s |" % (g, kind, depth, " | ".join(
            ("absent" if (g, f) in absent else v.get(f, "–")) for f in funcs)))
    md.append("\nCounted over the rounds of one guest each (the first of each kernel), namespaces "
              "made without forks subtracted. `__pid_ns_adding_errno()`, the walk over a namespace's "
              "parents, is meant to run only while a closed pid namespace exists%s.\n" % (
                  lambda c: "" if not c else (": no fork ran it here" if max(c) == 0
                                              else ": here it ran up to %g times per fork" % max(c)))(
                  [num(kv.get("per_fork")) or 0 for kv, g in fpk
                   if kv.get("func") == "__pid_ns_adding_errno" and "per_fork" in kv]))

# 5b. the same fork rows on an instruction clock (QEMU -icount)
def no_idle(rows):
    """Rounds with no idle tick (an instruction clock counts idle time);
    a round whose idle time could not be read (-1) is left out too."""
    return [r for r in rows if r[1].get("idle_ticks", "0") == "0"]


ipairs = []
idle_rounds = 0
for pg in guests("icount-pristine-"):
    i = os.path.basename(pg)[len("icount-pristine-"):-4]
    q = os.path.join(d, "icount-patched-%s.txt" % i)
    if os.path.exists(q) and not {"icount-pristine-" + i, "icount-patched-" + i} & set(mixed):
        pa, un = load(q), load(pg)
        idle_rounds += len(pa) + len(un) - len(no_idle(pa)) - len(no_idle(un))
        ipairs.append((i, no_idle(pa), no_idle(un)))
if ipairs:
    md.append("## 5b. fork + exit + wait in guest instructions (QEMU `-icount`)\n")
    md.append("Pairs of guests (ABBA) with one vCPU whose clock advances one nanosecond per guest "
              "instruction (`-icount shift=0`, each iteration of a `rep` string instruction "
              "counting as one), so that a time measured in the guest counts what the guest ran "
              "and not this machine's load: the fork rows of section 5, the same runs on both "
              "kernels, without address space randomization, each round after 0.2 s for what the "
              "previous one left behind. Rounds in which a timer tick found the CPU idle (the "
              "clock would count idle time; ticks come every 10 ms, about 2 million instructions, "
              "so a shorter idle spell can go unseen) are left out (%d were). What one vCPU cannot show: contention on "
              "`pidmap_lock` and `tasklist_lock` between CPUs, and cache misses (a load counts "
              "one, as an add does); the wall-clock guests above have two vCPUs.\n" % idle_rounds)
    md.append("Instructions per fork + exit + wait, median of the rounds (spread: half the range "
              "over the median), patched / unpatched per pair and their median, and patched − "
              "unpatched in instructions per pair:\n")
    md.append("| where | patched | spread | unpatched | spread | " +
              " | ".join("pair %s" % i for i, _, _ in ipairs) + " | median | " +
              " | ".join("Δ %s" % i for i, _, _ in ipairs) +
              " | goal | |\n|---|---:|---:|---:|---:|" + "---:|" * (2 * len(ipairs) + 2) + "---|")
    allp = [r for _, pa, _ in ipairs for r in pa]
    allu = [r for _, _, un in ipairs for r in un]
    keys = [("fork, pid_max %s" % k, "forkrate", "pid_max", k, {}) for k in ("default", "1000")]
    keys += [("CLONE_NEWPID depth %s" % k, "forkdepth", "depth", k, {"kind": "newpid"})
             for k in sizes_of(series(allp, "forkdepth", "depth", "ns", kind="newpid"))]
    icount_at = {}
    worst = 0.0
    for name, bench, key, k, match in keys:
        a = series(allp, bench, key, "ns", **match).get(k, [])
        b = series(allu, bench, key, "ns", **match).get(k, [])
        rs, ds = [], []
        for i, pa, un in ipairs:
            x = series(pa, bench, key, "ns", **match).get(k)
            y = series(un, bench, key, "ns", **match).get(k)
            rs.append(med(x) / med(y) if x and y else float("nan"))
            ds.append(med(x) - med(y) if x and y else float("nan"))
            for v in (x, y):
                if v and len(v) > 1:
                    worst = max(worst, 50.0 * (max(v) - min(v)) / med(v))
        ok = [x for x in rs if x == x]
        if not a or not b or not ok:
            continue
        r = med(ok)
        icount_at[(bench, k)] = med(a)
        md.append("| %s | %.0f | ±%.2f%% | %.0f | ±%.2f%% | %s | %.4f | %s | ≤ 1.02 | %s |" % (
            name, med(a), 50.0 * (max(a) - min(a)) / med(a), med(b), 50.0 * (max(b) - min(b)) / med(b),
            " | ".join("%.4f" % x for x in rs), r, " | ".join("%+.0f" % x for x in ds),
            verdict(r <= 1.02)))
        summary.append(("fork (instructions): %s, patched / unpatched (median of %d pairs)"
                        % (name, len(ok)), r, "≤ 1.02", r <= 1.02))
    md.append("\nThe rounds of one guest vary by up to ±%.2f %% (half the range), but the unit "
              "that counts is the boot: even without address space randomization, boots of one "
              "kernel differ by more than that (the state a boot leaves its allocators and caches "
              "in is its own). A difference between the kernels smaller than the spread of the "
              "pairs' Δ is not resolved; more pairs (`BENCH_ICOUNT_PAIRS`) narrow it.\n" % worst)

# 5c. where the patched fork path differs, function by function
prof = {}
for b, kv in host:
    if b == "profile":
        prof.setdefault((kv["kernel"], kv["kind"], kv["depth"]), []).append(num(kv["insns"]))
pfn = [kv for b, kv in host if b == "profilefn"]
psum = {(kv["kind"], kv["depth"]): kv for b, kv in host if b == "profilesum"}
if psum:
    npairs = int(next(iter(psum.values()))["pairs"])
    md.append("## 5c. What fork + exit + wait runs, function by function (instruction profile)\n")
    md.append("Kernel instructions per fork + exit + wait, counted per translation block by a QEMU "
              "TCG plugin (`tests/bench/insn-profile.c`) in %d pair(s) of guests, one boot of each "
              "kernel, ABBA (one vCPU, `-icount`, no address space randomization), from a `sync` "
              "just before the forks to one just after (`pspace_bench forkonce`, in the innermost "
              "of DEPTH namespaces), and mapped to functions with each kernel's `System.map` "
              "(`tests/bench/profile.sh`). The rows above say how much; this says where. A pspace "
              "row (patched kernel only) is set against the unpatched kernel's `CLONE_NEWPID` at "
              "the same depth.\n" % npairs)
    md.append("Per fork + exit + wait, means over the pairs: the totals and their difference; the "
              "part of it in the functions the series changes or adds on this path (`SERIES` in "
              "`tests/bench/profile.py`: `copy_process()`, `alloc_pid()`, the wait functions that "
              "inline `eligible_pid()`, the pspace hooks, ...); the part in every function whose "
              "difference comes back, with its sign and about its size, in every pair (the "
              "series' callees too); and the most two boots of one kernel differ by in total:\n")
    md.append("| where | patched | unpatched | patched − unpatched | in the series' functions "
              "| share | repeating in every pair | share | one kernel, two boots |\n"
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    cols = sorted(psum, key=lambda x: (int(x[1]), x[0]))
    for k, dep in cols:
        kv = psum[(k, dep)]
        pv = prof.get(("patched", k, dep))
        uv = prof.get(("pristine", "newpid", dep))
        if not pv or not uv:
            continue
        u = sum(uv) / len(uv)
        rep = "–" if npairs < 2 else "%+.0f" % float(kv["repeating"])
        rsh = "–" if npairs < 2 else "%+.3f %%" % (100 * float(kv["repeating"]) / u)
        md.append("| %s depth %s | %.0f | %.0f | %+.0f | %+.0f | %+.3f %% | %s | %s | %s |" % (
            "pspace" if k == "npspace" else "CLONE_NEWPID", dep, sum(pv) / len(pv), u,
            float(kv["total"]), float(kv["series"]), 100 * float(kv["series"]) / u, rep, rsh,
            "–" if npairs < 2 else "%.0f" % float(kv["aa"])))
    funcs = []
    for kv in pfn:
        if kv["func"] not in funcs:
            funcs.append(kv["func"])
    if funcs:
        cell = {}
        for kv in pfn:
            ds = [float(x) for x in kv["delta"].split(",")]
            c = "%+.0f" % (sum(ds) / len(ds))
            if len(ds) > 1:
                c = c if kv["repeat"] == "1" else "(%s)" % c
            if kv["calls_patched"] != kv["calls_pristine"]:
                c += " (%s / %s)" % (kv["calls_patched"], kv["calls_pristine"])
            cell[(kv["func"], kv["kind"], kv["depth"])] = c
        md.append("\nThe functions that differ most, those of `SERIES` and those whose difference "
                  "repeats: patched − unpatched instructions per fork, mean of the pairs, in "
                  "parentheses where it does not repeat in every pair (and calls per fork, "
                  "patched / unpatched, where they differ):\n")
        md.append("| function | " + " | ".join("%s %s" % ("pspace" if k == "npspace" else "newpid", dep)
                                                 for k, dep in cols)
                  + " |\n|---|" + "---:|" * len(cols))
        for f in funcs:
            md.append("| `%s` | %s |" % (f, " | ".join(cell.get((f, k, dep), "–") for k, dep in cols)))
        md.append("\nWhat does not repeat is where a boot's allocations happened to land (page "
                  "allocator, slab, the radix-tree nodes of each level's idr): two boots of one "
                  "kernel differ by as much.\n")

# 6. kill(-wid)
kz = series(patched, "killsize", "procs", "ns")
ks = series(patched, "killwid_system", "tasks", "ns")
if kz:
    md.append("## 6. kill(-wid) on a pspace of N processes (µs per call)\n")
    md.append("| processes | median | spread | ns per process |\n|---:|---:|---:|---:|")
    for p in sizes_of(kz):
        md.append("| %s | %.1f | %s | %.0f |" % (p, med(kz[p]) / 1e3, spread(kz[p]), med(kz[p]) / int(p)))
    xs = [int(p) for p in sizes_of(kz)]
    ys = [med(kz[str(x)]) for x in xs]
    n = len(xs)
    if n >= 2:
        mx, my = sum(xs) / n, sum(ys) / n
        sxx = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
        icpt = my - slope * mx
        ss_res = sum((y - (icpt + slope * x)) ** 2 for x, y in zip(xs, ys))
        ss_tot = sum((y - my) ** 2 for y in ys)
        r2 = 1 - ss_res / ss_tot if ss_tot else float("nan")
        big = max(xs)
        import math
        lx = [math.log(x) for x in xs]
        ly = [math.log(y) for y in ys]
        mlx, mly = sum(lx) / n, sum(ly) / n
        ll = sum((a - mlx) * (b - mly) for a, b in zip(lx, ly)) / sum((a - mlx) ** 2 for a in lx)
        md.append("\nSlope of log(time) against log(size): %.2f (1 is linear; below 1, the fixed cost "
                  "of the call still shows at the small sizes).\n" % ll)
        md.append("\nGoal: linear from 10 to %d processes. A straight line through the medians: %.0f ns "
                  "per process plus %.0f ns, R² = %.4f: %s. %d processes against 10: %.0f ×.\n"
                  % (big, slope, icpt, r2, verdict(r2 >= 0.98), big, med(kz[str(big)]) / med(kz[str(min(xs))])))
        summary.append(("kill(-wid): linear to %d processes (R² of a line)" % big, r2, "≥ 0.98", r2 >= 0.98))
        chart("killwid", "kill(-wid) against pspace size", "processes in the pspace", "µs per kill(-wid)",
              [("pspace", {x: y / 1e3 for x, y in zip(xs, ys)})], logx=False)
if ks:
    md.append("A pspace of 10 processes, with unrelated tasks elsewhere on the system (ns per call):\n")
    md.append("| unrelated tasks | median | spread | × at 0 |\n|---:|---:|---:|---:|")
    base = med(ks["0"])
    for t in sizes_of(ks):
        md.append("| %s | %.0f | %s | %.2f |" % (t, med(ks[t]), spread(ks[t]), med(ks[t]) / base))
    big = sizes_of(ks)[-1]
    r = med(ks[big]) / base
    md.append("\nGoal: flat, ≤ 1.2 × at %s unrelated tasks: %.2f, %s.\n" % (big, r, verdict(r <= 1.2)))
    summary.append(("kill(-wid): %s unrelated tasks / 0" % big, r, "≤ 1.2", r <= 1.2))

# 7. memory
idle = [kv for b, kv in patched if b == "idle"]
if idle:
    md.append("## 7. Memory of idle containers holding a `sleep`\n")
    md.append("All of the guest's used memory (MemTotal − MemFree − Buffers − Cached + Shmem: kernel, "
              "launchers, and memfd copies of a binary, which nothing can drop) after they all run, "
              "minus before, per running container; kernel = unreclaimable slab + stacks + page "
              "tables. The launchers in turns, the order rotated by round.\n")
    md.append("| launcher | rounds | containers | running | used per container | spread | kernel per container | shmem per container |\n"
              "|---|---:|---:|---:|---:|---:|---:|---:|")
    per, kern, shm, runs = defaultdict(list), defaultdict(list), defaultdict(list), defaultdict(list)
    for kv in idle:
        try:
            n = int(kv["running"])
            u = (int(kv["used_kb1"]) - int(kv["used_kb0"])) / n
            k = (int(kv["kernel_kb1"]) - int(kv["kernel_kb0"])) / n
            sh = (int(kv.get("shmem_kb1", 0)) - int(kv.get("shmem_kb0", 0))) / n
        except (KeyError, ValueError, ZeroDivisionError):
            warnings.append("idle %s: a malformed or empty round" % kv.get("kind"))
            continue
        per[kv["kind"]].append(u)
        kern[kv["kind"]].append(k)
        shm[kv["kind"]].append(sh)
        runs[kv["kind"]].append("%s/%s" % (kv.get("running"), kv.get("containers")))
    for kind in ("pspace-run", "bwrap", "unshare"):
        if per.get(kind):
            md.append("| %s | %d | %s | %s | %.0f KiB | %s | %.0f KiB | %.0f KiB |" % (
                kind, len(per[kind]), idle[0].get("containers"), ", ".join(runs[kind]), med(per[kind]),
                spread(per[kind]), med(kern[kind]), med(shm[kind])))
    for other in ("bwrap", "unshare"):
        if per.get("pspace-run") and per.get(other) and med(per[other]) > 0:
            r, rs, ci = fmt_ratio(per["pspace-run"], per[other])
            md.append("\npspace-run / %s: %s (%s); goal ≤ 1.0: %s." % (other, rs, ci, verdict(r <= 1)))
            summary.append(("memory per idle container: pspace-run / %s" % other, r, "≤ 1.0", r <= 1))
    md.append("")
m = series(patched, "memory", "kind", "kernel_bytes")
if m:
    md.append("Kernel memory per idle namespace (1,000 of each, with their leader process):\n")
    md.append("| kind | kernel | spread |\n|---|---:|---:|")
    for k in ("newpid", "npspace"):
        md.append("| %s | %.0f B | %s |" % (k, med(m[k]), spread(m[k])))
    r = med(m["npspace"]) / med(m["newpid"])
    md.append("\nGoal: pspace ≤ 1.05 × CLONE_NEWPID: %.3f, %s.\n" % (r, verdict(r <= 1.05)))
    summary.append(("kernel memory: pspace / NEWPID", r, "≤ 1.05", r <= 1.05))

# 8. create and reap
c = series(patched, "create", "kind", "ns")
if c:
    md.append("## 8. Create and reap (ns per create + reap)\n")
    md.append("| kind | median | spread | rounds |\n|---|---:|---:|---:|")
    for k in ("fork", "newpid", "npspace"):
        md.append("| %s | %.0f | %s | %d |" % (k, med(c[k]), spread(c[k]), len(c[k])))
    r1 = med(c["npspace"]) / med(c["newpid"])
    md.append("\nGoal: pspace ≤ 1.10 × CLONE_NEWPID: %.2f, %s.\n" % (r1, verdict(r1 <= 1.10)))
    summary.append(("create: pspace / NEWPID", r1, "≤ 1.10", r1 <= 1.10))

need = [("teardown", "teardown"), ("freeze", "freeze"), ("thaw", "freeze"), ("boot", "boot"),
        ("halt", "halt"), ("start to exit", "start to exit"), ("podman", "podman"),
        ("fork", "fork (wall clock)"), ("fork at depth", "fork at depth"),
        ("fork in instructions", "fork (instructions)"),
        ("kill(-wid)", "kill(-wid): linear"), ("memory per idle container", "memory per idle")]
missing = [label for label, key in need if not any(name.startswith(key) for name, _, _, _ in summary)]
head = ["## Summary\n"]
if missing:
    head.append("**Rows without data (not measured in this run): %s.**\n" % ", ".join(missing))
head += ["| measure | value | goal | |", "|---|---:|---:|---|"]
for name, v, goal, ok in summary:
    f = "%.4f" if "R²" in name else ("%.0f" if goal == "0" else "%.2f")
    head.append(("| %s | " + f + " | %s | %s |") % (name, v, goal, verdict(ok) if goal != "–" else "–"))
head.append("")
md = md[:3] + head + md[3:]
open(os.path.join(d, "report.md"), "w").write("\n".join(md) + "\n")
print(open(os.path.join(d, "report.md")).read())
