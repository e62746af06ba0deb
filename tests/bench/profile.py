#!/usr/bin/env python3
"""Per-function instruction counts of the fork path, patched and unpatched.

    profile.py OUTDIR N PATCHED_SYSTEM_MAP PRISTINE_SYSTEM_MAP

Reads what tests/bench/profile.sh left in OUTDIR: profile-VARIANT.index
(one "profile kind=K depth=D" line per profile, in order) and
profile-VARIANT.1, .2, ... ("vaddr insns executions" per translation block,
from tests/bench/insn-profile.c).  Maps each block to the function that
holds it and prints RESULT lines, per fork+exit+wait (N of them):

  RESULT profile kernel=V kind=K depth=D insns=I
  RESULT profilefn kind=K depth=D func=F patched=I pristine=I \
      calls_patched=C calls_pristine=C

  RESULT profilesum kind=K depth=D series=I rest=I

The profilefn lines are the functions whose count differs most between the
kernels (the patched kernel's pspace kind against the unpatched kernel's
CLONE_NEWPID at the same depth) and the functions of SERIES; profilesum
splits the difference of the totals into what SERIES run and the rest.
A block's executions at a function's own address count its calls.
"""
import bisect
import os
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


def profile(path, addrs, names):
    """{func: [instructions, calls]} of one profile file."""
    funcs = {}
    with open(path) as f:
        for line in f:
            vaddr, insns, count = line.split()
            vaddr, insns, count = int(vaddr, 16), int(insns), int(count)
            i = bisect.bisect_right(addrs, vaddr) - 1
            name = names[i] if i >= 0 else "?"
            fn = funcs.setdefault(name, [0, 0])
            fn[0] += insns * count
            if i >= 0 and addrs[i] == vaddr:
                fn[1] += count
    return funcs


def load(out, variant, sysmap):
    addrs, names = read_map(sysmap)
    res = {}
    index = os.path.join(out, "profile-%s.index" % variant)
    if not os.path.exists(index):
        return res
    with open(index) as f:
        for k, line in enumerate(f, 1):
            kv = dict(w.split("=", 1) for w in line.split()[1:])
            path = os.path.join(out, "profile-%s.%d" % (variant, k))
            if os.path.exists(path):
                res[(kv["kind"], int(kv["depth"]))] = profile(path, addrs, names)
    return res


def main():
    out, n, pmap, umap = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    kernels = {"patched": load(out, "patched", pmap),
               "pristine": load(out, "pristine", umap)}
    for kernel, profs in kernels.items():
        for (kind, depth), funcs in sorted(profs.items()):
            total = sum(v[0] for v in funcs.values())
            print("RESULT profile kernel=%s kind=%s depth=%d insns=%.0f"
                  % (kernel, kind, depth, total / n))
    base = kernels["pristine"]
    for (kind, depth), pf in sorted(kernels["patched"].items()):
        uf = base.get(("newpid", depth))
        if uf is None:
            continue
        zero = [0, 0]
        delta = {f: pf.get(f, zero)[0] - uf.get(f, zero)[0] for f in set(pf) | set(uf)}
        series = sum(delta.get(f, 0) for f in SERIES)
        print("RESULT profilesum kind=%s depth=%d series=%.1f rest=%.1f"
              % (kind, depth, series / n, (sum(delta.values()) - series) / n))
        top = sorted(delta, key=lambda f: -abs(delta[f]))[:TOP_FUNCS]
        for f in top + [f for f in SERIES if f not in top and (f in pf or f in uf)]:
            p, u = pf.get(f, zero), uf.get(f, zero)
            print("RESULT profilefn kind=%s depth=%d func=%s patched=%.1f pristine=%.1f "
                  "calls_patched=%.2f calls_pristine=%.2f"
                  % (kind, depth, f, p[0] / n, u[0] / n, p[1] / n, u[1] / n))


if __name__ == "__main__":
    main()
