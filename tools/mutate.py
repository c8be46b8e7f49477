#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generated mutants of the lock files and their mutation score (issue #16).

    tools/mutate.py [--file locks/pv_qspinlock.c] [--op OP] [--max N]
                    [--time T] [--work DIR] [--list] [--json FILE]

Each mutant changes one place of a lock file by one operator:

  rel      swap == and !=, < and <=, > and >=
  neg      negate the condition of an if or while
  del      delete a statement (a call or an assignment on a line of its own)
  barrier  drop an ordering: smp_store_release -> WRITE_ONCE,
           smp_load_acquire -> READ_ONCE, *_acquire / *_release atomics ->
           *_relaxed, smp_mb / smp_rmb / smp_wmb deleted
  const    replace an integer constant n by n + 1 (0 by 1)

Lines that only check (lk_violation, the QSIM_BUG_ON family), the
catalogued mutants' own branches (MUTANT(...)), declarations and
comments are left alone.  The mutants are spread evenly over the
candidates (--max, default 60) so a run of the script stays bounded.

For each mutant the script writes the changed file into a copy of the
source tree, rebuilds qsim there (-DQSIM_MUTANT_BUILDS=OFF, so only the
changed file compiles), and runs `qsim torture` on the file's locks (the slowpath template's:
pv_qspinlock and qspinlock) for --time (default 10s) of host time each
on every core, stopping at the first violation.  A mutant is

  killed      torture reported a violation (or qsim stopped on an
              internal check): the bug was found
  survived    every seed passed
  stillborn   it does not compile (not counted)

A barrier mutant is tortured under POWER's weak memory (`--memory
power`), where dropping an ordering can show.  The score is killed / (killed + survived).  docs/torture.md records
the last measurement and explains each survivor.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The locks built from each file (the template makes both queued locks).
LOCK_OF = {"locks/pv_qspinlock.c": ["pv_qspinlock"],
           "locks/ppc_qspinlock.c": ["ppc_qspinlock"],
           "locks/qspinlock_slowpath.h": ["pv_qspinlock", "qspinlock"]}

SKIP = re.compile(r"lk_violation|QSIM_BUG_ON|MUTANT\(|lockevent_|LK_CHECKS|"
                  r"g_hash_table|GPOINTER|pv_note_steal|"
                  r"hash_count|"
                  r"^\s*(static|struct|const|u8|u16|u32|u64|int|bool|"
                  r"unsigned|uint\w+|#|/?\*|//|case |default:)")
RELOPS = [("==", "!="), ("!=", "=="), ("<=", "<"), (">=", ">")]
BARRIERS = [("smp_store_release(", "WRITE_ONCE(*"),
            ("smp_load_acquire(", "READ_ONCE(*"),
            ("_acquire(", "_relaxed("), ("_release(", "_relaxed(")]
FENCE = re.compile(r"^\s*smp_(mb|rmb|wmb)\(\);\s*$")
STMT = re.compile(r"^\s*[A-Za-z_][\w>.\-\[\]]*\s*(\(.*\)|[-+|&]?=.*);\s*$")
COND = re.compile(r"\b(if|while) \((.*)\)\s*(\{)?\s*$")
CONST = re.compile(r"(?<![\w.])(\d+)(?![\w.])")


def in_function(lines):
    """Which lines lie inside a function body (brace depth > 0)."""
    depth, inside, comment = 0, [], False
    for line in lines:
        code = line
        if comment:
            if "*/" in code:
                code = code.split("*/", 1)[1]
                comment = False
            else:
                inside.append(False)
                continue
        code = re.sub(r"/\*.*?\*/", "", code)
        if "/*" in code:
            code, comment = code.split("/*", 1)[0], True
        inside.append(depth > 0)
        depth += code.count("{") - code.count("}")
    return inside


GUARD = re.compile(r"\bif \(.*(MUTANT\(|LK_CHECKS)")


def guarded(lines):
    """Lines under `if (MUTANT(...))` or `if (... LK_CHECKS ...)`: the
    catalogued mutants' code and the checks, dead or check-only in the
    build a generated mutant is tortured in."""
    dead = [False] * len(lines)
    i = 0
    while i < len(lines):
        if GUARD.search(lines[i]):
            if lines[i].rstrip().endswith("{"):
                depth = 0
                j = i
                while j < len(lines):
                    depth += lines[j].count("{") - lines[j].count("}")
                    dead[j] = True
                    j += 1
                    if depth <= 0:
                        break
                # an else branch belongs to the build
                i = j
                continue
            dead[i] = True
            if i + 1 < len(lines):
                dead[i + 1] = True
        i += 1
    return dead


def candidates(path):
    with open(os.path.join(SRC, path)) as f:
        lines = f.read().split("\n")
    body = in_function(lines)
    dead = guarded(lines)
    out = []
    for i, line in enumerate(lines):
        if not body[i] or dead[i] or SKIP.search(line) or '"' in line:
            continue
        # a statement continued on the next line: leave it whole
        if line.rstrip().endswith((",", "(", "&&", "||", "=")) or \
                (i > 0 and lines[i - 1].rstrip().endswith((",", "(", "&&",
                                                           "||", "="))):
            continue
        for a, b in BARRIERS:
            if a in line:
                out.append(("barrier", i, line.replace(a, b, 1)))
                break
        if FENCE.match(line):
            out.append(("barrier", i, ""))
        for a, b in RELOPS:
            if a in line and not ("<<" in line or ">>" in line or "->" in line and a in ("<=", ">=")):
                out.append(("rel", i, line.replace(a, b, 1)))
        m = COND.search(line)
        if m and line.rstrip().endswith((")", "{")):
            neg = line[:m.start(2)] + "!(" + m.group(2) + ")" + line[m.end(2):]
            out.append(("neg", i, neg))
        if STMT.match(line) and not FENCE.match(line) and \
                not re.search(r"\breturn\b|\bgoto\b|\bbreak\b", line):
            out.append(("del", i, ""))
        c = CONST.search(line)
        if c and not m and "[" not in line:
            n = int(c.group(1))
            out.append(("const", i, line[:c.start(1)] + str(n + 1) +
                        line[c.end(1):]))
    return lines, out


def spread(items, n):
    if n <= 0 or len(items) <= n:
        return items
    step = len(items) / n
    return [items[int(k * step)] for k in range(n)]


def run(cmd, cwd=None, timeout=None):
    return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True,
                          timeout=timeout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--file", action="append",
                    help="lock file to mutate (repeat; default the two pv "
                    "locks and the slowpath template)")
    ap.add_argument("--max", type=int, default=60,
                    help="mutants at most, spread over the candidates")
    ap.add_argument("--time", default="10s", help="torture time per mutant")
    ap.add_argument("--work", default="build-mutants",
                    help="scratch copy of the tree and its build")
    ap.add_argument("--list", action="store_true",
                    help="list the mutants only")
    ap.add_argument("--json", help="write the results here too")
    ap.add_argument("--op", action="append",
                    choices=["rel", "neg", "del", "barrier", "const"],
                    help="only mutants of this operator (repeat)")
    a = ap.parse_args()
    files = a.file or ["locks/pv_qspinlock.c", "locks/qspinlock_slowpath.h",
                       "locks/ppc_qspinlock.c"]
    muts = []
    originals = {}
    for f in files:
        lines, cands = candidates(f)
        originals[f] = lines
        muts += [(f,) + c for c in cands
                 if not a.op or c[0] in a.op]
    muts = spread(muts, a.max)
    if a.list:
        for k, (f, op, i, new) in enumerate(muts, 1):
            print("%3d %-28s %4d %-8s %s" % (k, f, i + 1, op,
                                              new.strip() or "(deleted)"))
        return 0
    work = os.path.abspath(a.work)
    tree = os.path.join(work, "src")
    build = os.path.join(work, "build")
    if os.path.exists(tree):
        shutil.rmtree(tree)
    os.makedirs(tree)
    for p in run(["git", "ls-files"], cwd=SRC).stdout.split("\n"):
        if p:
            os.makedirs(os.path.dirname(os.path.join(tree, p)) or tree,
                        exist_ok=True)
            shutil.copy2(os.path.join(SRC, p), os.path.join(tree, p))
    r = run(["cmake", "-S", tree, "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
             "-DQSIM_MUTANT_BUILDS=OFF"])
    if r.returncode:
        print(r.stdout)
        return 1
    if run(["cmake", "--build", build, "--target", "qsim", "-j",
            str(os.cpu_count())]).returncode:
        print("the unmutated tree does not build")
        return 1
    results = []
    counts = {"killed": 0, "survived": 0, "stillborn": 0}
    t0 = time.time()
    for k, (f, op, i, new) in enumerate(muts, 1):
        lines = list(originals[f])
        old = lines[i]
        lines[i] = new
        with open(os.path.join(tree, f), "w") as out:
            out.write("\n".join(lines))
        res = {"id": k, "file": f, "line": i + 1, "operator": op,
               "from": old.strip(), "to": new.strip() or "(deleted)"}
        b = run(["cmake", "--build", build, "--target", "qsim", "-j",
                 str(os.cpu_count())])
        if b.returncode:
            res["result"] = "stillborn"
        else:
            tdir = os.path.join(work, "torture-out")
            res["seeds"] = 0
            res["result"] = "survived"
            # A dropped ordering shows only on a weakly ordered machine.
            mem = ["--memory", "power"] if op == "barrier" else []
            for lock in LOCK_OF[f]:
                try:
                    t = run([os.path.join(build, "qsim"), "torture",
                             "--lock", lock, "--time", a.time, "--no-store",
                             "--out", tdir] + mem, timeout=600)
                except subprocess.TimeoutExpired:
                    res["result"] = "killed"
                    res["how"] = lock + ": torture did not finish (a hang)"
                    break
                seeds = re.search(r"torture: (\d+) seeds", t.stdout)
                res["seeds"] += int(seeds.group(1)) if seeds else 0
                if t.returncode != 0:
                    tail = t.stdout.strip().split("\n")
                    v = re.search(r"^seed \d+: (.*)$", t.stdout, re.M)
                    res["result"] = "killed"
                    res["how"] = (lock + ": " +
                                  (v.group(1) if v else tail[-1]))[:120]
                    break
        counts[res["result"]] += 1
        results.append(res)
        print("%3d/%d %-9s %s:%d %s: %s -> %s%s" % (
            k, len(muts), res["result"], f, i + 1, op, res["from"][:50],
            res["to"][:50],
            ("  [" + res["how"][:70] + "]") if "how" in res else ""),
            flush=True)
        with open(os.path.join(tree, f), "w") as out:
            out.write("\n".join(originals[f]))
    judged = counts["killed"] + counts["survived"]
    score = counts["killed"] / judged if judged else 0.0
    print("\n%d mutants in %.0f s: %d killed, %d survived, %d stillborn; "
          "mutation score %.1f%%" % (
              len(muts), time.time() - t0, counts["killed"],
              counts["survived"], counts["stillborn"], 100 * score))
    if a.json:
        with open(a.json, "w") as out:
            json.dump({"counts": counts, "score": score,
                       "mutants": results}, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
