#!/usr/bin/env python3
"""Per-function instruction counts of the fork path, patched and unpatched.

    profile.py OUTDIR N PATCHED_SYSTEM_MAP PRISTINE_SYSTEM_MAP

Reads what tests/bench/profile.sh left in OUTDIR: for each boot R of each
kernel V, profile-V-R.index (one "profile kind=K depth=D" line per
profile, in order) and profile-V-R.1, .2, ... ("vaddr insns executions
last" per translation block, from tests/bench/insn-profile.c).  Maps each
block to the function that holds it and prints RESULT lines, per
fork+exit+wait (N of them):

  RESULT profile kernel=V run=R kind=K depth=D insns=I
  RESULT profilesum kind=K depth=D pairs=P total=I series=I repeating=I aa=I
  RESULT profilefn kind=K depth=D func=F delta=I,I,... patched=I \
      pristine=I calls_patched=C calls_pristine=C repeat=0|1

A pair is boot R of each kernel; the patched kernel's pspace kind is set
against the unpatched kernel's CLONE_NEWPID at the same depth.  total is
the difference of the totals, series what the functions of SERIES
differ by, repeating what the functions differ by whose difference has
the same sign and about the same size in every pair (none with one
pair), aa the most two boots of one kernel differ by in total: all means
over the pairs.  profilefn lines: the functions that differ most, those
of SERIES, those that repeat.  A block's executions at a function's own
address count its calls.
"""
import bisect
import glob
import os
import re
import sys

TOP_FUNCS = 10
# The functions on the fork + exit + wait path that the series changes or
# adds (kernel/patches: fork.c, pid.c, exit.c, pspace hooks; the two wait
# functions inline eligible_pid()); what runs in them is the price of the
# series, what differs elsewhere is where a boot's allocations landed.
SERIES = ("copy_process", "alloc_pid", "free_pid", "eligible_pid",
          "__pid_ns_adding_errno", "pid_ns_close", "pspace_fork_start",
          "pspace_fork_end", "copy_namespaces", "__send_signal_locked",
          "wait_consider_task", "child_wait_callback")


def read_map(path):
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return [a for a, _ in syms], [s for _, s in syms]


PAGE = 4096
MAX_INSN = 15


def profile(path, addrs, names):
    """{func: [instructions, calls]} of one profile file.

    A block of more than one instruction whose last one starts within an
    instruction's length of a page end, where another block starts, had
    that instruction abandoned by QEMU 7.2's translator (it crosses into
    the next page) but still counted: it runs in the next block.
    """
    blocks = []
    with open(path) as f:
        for line in f:
            w = line.split()
            blocks.append((int(w[0], 16), int(w[1]), int(w[2]),
                           int(w[3], 16) if len(w) > 3 else None))
    starts = {b[0] for b in blocks}
    funcs = {}
    for vaddr, insns, count, last in blocks:
        if (insns > 1 and last is not None and last in starts
                and PAGE - last % PAGE < MAX_INSN):
            insns -= 1
        i = bisect.bisect_right(addrs, vaddr) - 1
        name = names[i] if i >= 0 else "?"
        fn = funcs.setdefault(name, [0, 0])
        fn[0] += insns * count
        if i >= 0 and addrs[i] == vaddr:
            fn[1] += count
    return funcs


def load(out, variant, run, sysmap, n):
    addrs, names = read_map(sysmap)
    res = {}
    stem = os.path.join(out, "profile-%s-%d" % (variant, run))
    with open(stem + ".index") as f:
        for k, line in enumerate(f, 1):
            kv = dict(w.split("=", 1) for w in line.split()[1:])
            path = "%s.%d" % (stem, k)
            if not os.path.exists(path):
                sys.exit("profile.py: %s: missing; the guest's sync calls and %s.index disagree"
                         % (path, stem))
            funcs = profile(path, addrs, names)
            # The dumps follow the index only if nothing else ran sync(2):
            # each holds as many forks as the guest made, one copy_process
            # each (a shifted dump would hold none, or namespace setup).
            forks = funcs.get("copy_process", [0, 0])[1]
            if abs(forks - n) > n // 100 + 1:
                sys.exit("profile.py: %s: %d calls of copy_process, not %d: the dumps and "
                         "%s.index do not line up" % (path, forks, n, stem))
            res[(kv["kind"], int(kv["depth"]))] = funcs
    return res


def runs_of(out, variant):
    runs = []
    for p in glob.glob(os.path.join(out, "profile-%s-*.index" % variant)):
        m = re.search(r"-(\d+)\.index$", p)
        if m:
            runs.append(int(m.group(1)))
    return sorted(runs)


def repeats(ds):
    """Does a difference come back, about as large, in every pair?"""
    if len(ds) < 2 or min(abs(d) for d in ds) < 1:
        return False
    if not (all(d > 0 for d in ds) or all(d < 0 for d in ds)):
        return False
    return max(ds) - min(ds) <= max(2.0, 0.25 * min(abs(d) for d in ds))


def mean(xs):
    return sum(xs) / len(xs)


def main():
    out, n, pmap, umap = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    maps = {"patched": pmap, "pristine": umap}
    runs = {v: {r: load(out, v, r, maps[v], n) for r in runs_of(out, v)} for v in maps}
    totals = {}
    for v in maps:
        for r, profs in sorted(runs[v].items()):
            for (kind, depth), funcs in sorted(profs.items()):
                t = sum(x[0] for x in funcs.values()) / n
                totals.setdefault((v, kind, depth), []).append(t)
                print("RESULT profile kernel=%s run=%d kind=%s depth=%d insns=%.0f"
                      % (v, r, kind, depth, t))
    pairs = sorted(set(runs["patched"]) & set(runs["pristine"]))
    if not pairs:
        return
    zero = [0, 0]
    for kind, depth in sorted(runs["patched"][pairs[0]]):
        pfs = [runs["patched"][r].get((kind, depth)) for r in pairs]
        ufs = [runs["pristine"][r].get(("newpid", depth)) for r in pairs]
        if None in pfs or None in ufs:
            continue
        names = set()
        for f in pfs + ufs:
            names |= set(f)
        d = {f: [(pf.get(f, zero)[0] - uf.get(f, zero)[0]) / n for pf, uf in zip(pfs, ufs)]
             for f in names}
        rep = {f for f in names if repeats(d[f])}
        aa = 0.0
        for key in (("patched", kind, depth), ("pristine", "newpid", depth)):
            t = totals.get(key, [])
            if len(t) > 1:
                aa = max(aa, max(t) - min(t))
        print("RESULT profilesum kind=%s depth=%d pairs=%d total=%.1f series=%.1f "
              "repeating=%.1f aa=%.0f"
              % (kind, depth, len(pairs), sum(mean(d[f]) for f in names),
                 sum(mean(d[f]) for f in SERIES if f in d),
                 sum(mean(d[f]) for f in rep), aa))
        top = sorted(names, key=lambda f: -abs(mean(d[f])))[:TOP_FUNCS]
        pick = top + [f for f in SERIES if f in names and f not in top]
        pick += sorted((f for f in rep if f not in pick), key=lambda f: -abs(mean(d[f])))
        for f in pick:
            print("RESULT profilefn kind=%s depth=%d func=%s delta=%s patched=%.1f pristine=%.1f "
                  "calls_patched=%.2f calls_pristine=%.2f repeat=%d"
                  % (kind, depth, f, ",".join("%.1f" % x for x in d[f]),
                     mean([pf.get(f, zero)[0] for pf in pfs]) / n,
                     mean([uf.get(f, zero)[0] for uf in ufs]) / n,
                     mean([pf.get(f, zero)[1] for pf in pfs]) / n,
                     mean([uf.get(f, zero)[1] for uf in ufs]) / n, f in rep))


if __name__ == "__main__":
    main()
