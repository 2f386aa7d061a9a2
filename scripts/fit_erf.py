#!/usr/bin/env python3
"""Fits the coefficients of simdformer's vectorised erf (src/simdformer/kernels/erf.h) by the
Remez exchange algorithm, from the definition of erf alone (mpmath evaluates erf and erfc).

  /usr/bin/python3 scripts/fit_erf.py [t as hex float] [deg_small] [deg_large] [deg_exp2]
  /usr/bin/python3 scripts/fit_erf.py --split

Two ranges of a = |x|:
  [0, t]:  erf(a) = a + a * Q(a^2), Q(s) ~ erf(sqrt s) / sqrt s - 1, minimax in relative error;
  [t, X]:  erf(a) = 1 - 2^M(v), v = a - t in [0, X - t], M ~ log2 erfc(a), minimax in the
           absolute error of erf (the error of M weighted by ln 2 * erfc(a)). The variable starts
           at 0 where erfc is largest, so there M ~ M(0) and float rounding stays near an ulp of
           M(0) (a variable centred in the range cancels terms of 10 to 15 at its start);
and 2^r for r in [-1/2, 1/2] (r = M - round(M)): P(r) ~ 2^r, minimax in relative error.
Each polynomial is rounded to float32 one coefficient at a time, lowest degree first, and the
remaining ones are refitted with the rounded ones fixed, so the rounding errors are absorbed.

  /usr/bin/python3 scripts/fit_erf.py --exp [deg]

softmax's exp: e^r for |r| <= ln 2 / 2 (plus a margin for r's rounding), minimax in relative error,
float coefficients rounded lowest degree first as above (the first two come out as exactly 1).

  /usr/bin/python3 scripts/fit_erf.py --gelu [clamp] [deg_p] [deg_q]

The exact GELU's erf(x / sqrt 2) as one rational function of x: a P(a^2) / Q(a^2), a = min(|x|,
clamp), Q(0) = 1, minimax in relative error over [0, clamp] (Remez exchange for a rational
function: each step solves the linear system with the error term weighted by the previous Q);
its float coefficients rounded one at a time and the rest refitted, as above. Then the float
nearest 5.55 at which the fit evaluates to >= 1 in float arithmetic both with and without fused
multiply-adds: the clamp, where min(fit, 1) is exactly 1 (erf(x / sqrt 2) rounds to 1 there).
"""
import functools
import struct
import sys

import mpmath as mp

mp.mp.dps = 25
GRID = 1200


def f32(x):
    return struct.unpack('f', struct.pack('f', float(x)))[0]


def exchange(grid, vals, n):
    """The next reference: the largest |error| of each run of one sign on the grid, trimmed to n
    points from the ends with the smaller error; None when the error alternates fewer than n times."""
    ext, start = [], 0
    for i in range(1, len(grid) + 1):
        if i == len(grid) or (vals[i] > 0) != (vals[start] > 0):
            best = max(range(start, i), key=lambda k: abs(vals[k]))
            ext.append((grid[best], abs(vals[best])))
            start = i
    while len(ext) > n:
        ext.pop(0 if ext[0][1] < ext[-1][1] else -1)
    return [x for x, _ in ext] if len(ext) == n else None


def remez(f, w, a, b, powers, iters=30):
    """c minimising max |w(x) (sum_j c_j x^powers[j] - f(x))| on [a, b]; returns (c, error)."""
    n = len(powers) + 1
    xs = [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * i / (n - 1)) for i in range(n)]
    grid = [a + (b - a) * i / GRID for i in range(GRID + 1)]
    fg = [f(x) for x in grid]
    wg = [w(x) for x in grid]
    coeffs, err = None, None
    for _ in range(iters):
        A = mp.matrix(n, n)
        rhs = mp.matrix(n, 1)
        for i, x in enumerate(xs):
            for j, p in enumerate(powers):
                A[i, j] = x ** p
            A[i, n - 1] = (-1) ** i / w(x)
            rhs[i] = f(x)
        sol = mp.lu_solve(A, rhs)
        coeffs = [sol[j] for j in range(n - 1)]
        vals = [wg[i] * (sum(c * grid[i] ** p for c, p in zip(coeffs, powers)) - fg[i]) for i in range(len(grid))]
        err_now = max(abs(v) for v in vals)
        new = exchange(grid, vals, n)
        if new is None:
            break
        err = err_now
        if new == xs:
            break
        xs = new
    return coeffs, err


def fit_rounded(f, w, a, b, deg, order=None):
    """Float32 coefficients: round one coefficient (in `order`, default lowest degree first), refit
    the others with it fixed, and so on."""
    order = list(range(deg + 1)) if order is None else order
    fixed = {}
    err = None
    for j in order:
        g = (lambda fx: (lambda x: f(x) - sum(c * x ** p for p, c in fx.items())))(dict(fixed))
        free = [p for p in range(deg + 1) if p not in fixed]
        coeffs, err = remez(g, w, a, b, free)
        fixed[j] = mp.mpf(f32(coeffs[free.index(j)]))
    return [float(fixed[p]) for p in range(deg + 1)], err


def find_split(lo=0.78, hi=0.8125):
    """Floats t in [lo, hi] (every 7th) whose log2 erfc(t) is nearest to a float, in ulps."""
    bits = lambda x: struct.unpack('I', struct.pack('f', x))[0]
    frombits = lambda b: struct.unpack('f', struct.pack('I', b))[0]
    best = []
    for b in range(bits(lo), bits(hi), 7):
        t = frombits(b)
        m0 = mp.log(mp.erfc(t), 2)
        best.append((float(abs(m0 - f32(m0)) / 2 ** -23), t))
    for e, t in sorted(best)[:5]:
        print(f"t = {float(t).hex()} ({t}): log2 erfc(t) {e:.2g} ulp from a float")


def rational_remez(f, w, a, b, dp, dq, fixed_p, fixed_q, iters=60):
    """P / Q (Q(0) = 1) minimising max |w(x) (P(x) / Q(x) - f(x))| on [a, b], with the coefficients
    in fixed_p / fixed_q (power -> value) held; returns (error, P's coefficients, Q's)."""
    free_p = [j for j in range(dp + 1) if j not in fixed_p]
    free_q = [j for j in range(1, dq + 1) if j not in fixed_q]
    n = len(free_p) + len(free_q) + 1
    xs = [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * i / (n - 1)) for i in range(n)]
    grid = [a + (b - a) * i / GRID for i in range(GRID + 1)]
    fg = [f(x) for x in grid]
    wg = [w(x) for x in grid]
    poly = lambda cs, x: sum(v * x ** j for j, v in cs.items())
    q_prev = {0: mp.mpf(1)}
    best = None
    for _ in range(iters):
        for _ in range(8):  # the error term's Q from the previous solve, until it settles
            A = mp.matrix(n, n)
            rhs = mp.matrix(n, 1)
            for i, x in enumerate(xs):
                fx = f(x)
                for k, j in enumerate(free_p):
                    A[i, k] = x ** j
                for k, j in enumerate(free_q):
                    A[i, len(free_p) + k] = -fx * x ** j
                A[i, n - 1] = -(-1) ** i * poly(q_prev, x) / w(x)
                rhs[i] = fx * (1 + poly(fixed_q, x)) - poly(fixed_p, x)
            sol = mp.lu_solve(A, rhs)
            pc = {**fixed_p, **{j: sol[k] for k, j in enumerate(free_p)}}
            qc = {0: mp.mpf(1), **fixed_q, **{j: sol[len(free_p) + k] for k, j in enumerate(free_q)}}
            q_prev = qc
        vals = [wg[i] * (poly(pc, grid[i]) / poly(qc, grid[i]) - fg[i]) for i in range(len(grid))]
        err = max(abs(v) for v in vals)
        if best is None or err < best[0]:
            best = (err, pc, qc)
        new = exchange(grid, vals, n)
        if new is None or new == xs:
            break
        xs = new
    return best


def fit_gelu(clamp, dp, dq):
    f = lambda s: mp.erf(mp.sqrt(s / 2)) / mp.sqrt(s) if s > 0 else mp.sqrt(2 / mp.pi)
    w = lambda s: 1 / f(s)
    fixed_p, fixed_q = {}, {}
    for kind, j in sorted([('p', j) for j in range(dp + 1)] + [('q', j) for j in range(1, dq + 1)],
                          key=lambda t: (t[1], t[0])):  # lowest degree first
        _, pc, qc = rational_remez(f, w, mp.mpf(0), clamp * clamp, dp, dq, fixed_p, fixed_q)
        (fixed_p if kind == 'p' else fixed_q)[j] = mp.mpf(f32((pc if kind == 'p' else qc)[j]))
    p = [fixed_p[j] for j in range(dp + 1)]
    q = [mp.mpf(1)] + [fixed_q[j] for j in range(1, dq + 1)]
    ss = [clamp * clamp * i / (4 * GRID) for i in range(4 * GRID + 1)]
    err = max(abs(sum(c * s ** j for j, c in enumerate(p)) / sum(c * s ** j for j, c in enumerate(q)) / f(s) - 1)
              for s in ss)
    return [float(v) for v in p], [float(v) for v in q], err


def gelu_fit_in_float(a, p, q, fused):
    """a P(a^2) / Q(a^2) evaluated in float32 as kernels/vector_math.h does (Horner's rule), with
    fused multiply-adds or a multiply and an add."""
    madd = (lambda x, y, z: f32(x * y + z)) if fused else (lambda x, y, z: f32(f32(x * y) + z))
    s = f32(a * a)
    horner = lambda cs: functools.reduce(lambda acc, c: madd(acc, s, c), reversed(cs[:-1]), cs[-1])
    return f32(a * f32(horner(p) / horner(q)))


def gelu_clamp(p, q, near=5.55):
    bits = lambda x: struct.unpack('I', struct.pack('f', x))[0]
    frombits = lambda b: struct.unpack('f', struct.pack('I', b))[0]
    for d in range(20000):
        for b in (bits(near) - d, bits(near) + d):
            a = frombits(b)
            if all(gelu_fit_in_float(a, p, q, fused) >= 1 for fused in (False, True)):
                return a
    return None


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--exp':
        deg = int(sys.argv[2]) if len(sys.argv) > 2 else 6
        half = mp.log(2) / 2 + mp.mpf('0.0005')
        c, err = fit_rounded(mp.exp, lambda r: 1 / mp.exp(r), -half, half, deg)
        print(f"// e^r on |r| <= ln 2 / 2 + 0.0005: degree {deg}, relative error {mp.nstr(err, 3)}; float32 coefficients")
        print("P: " + ", ".join(f"{v.hex()}" for v in c))
        return
    if len(sys.argv) > 1 and sys.argv[1] == '--gelu':
        clamp = mp.mpf(sys.argv[2]) if len(sys.argv) > 2 else mp.mpf('5.55')
        dp = int(sys.argv[3]) if len(sys.argv) > 3 else 5
        dq = int(sys.argv[4]) if len(sys.argv) > 4 else 5
        p, q, err = fit_gelu(clamp, dp, dq)
        print(f"// erf(x / sqrt 2) = a P(a^2) / Q(a^2) on [0, {clamp}]: P degree {dp}, Q degree {dq}, relative "
              f"error {mp.nstr(err, 3)} with float32 coefficients; clamp {float(gelu_clamp(p, q)).hex()}")
        for name, cs in (('P', p), ('Q', q)):
            print(f"{name}: " + ", ".join(f"{v.hex()}" for v in cs))
        return
    # The split: a float at which log2 erfc is within 2e-5 ulp of a float (scripts/fit_erf.py
    # --split finds it), so rounding M's constant term costs nothing where erfc is largest.
    if len(sys.argv) > 1 and sys.argv[1] == '--split':
        return find_split()
    t = mp.mpf(float.fromhex(sys.argv[1])) if len(sys.argv) > 1 else mp.mpf(float.fromhex('0x1.9bf2acp-1'))
    ds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    dl = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    de = int(sys.argv[4]) if len(sys.argv) > 4 else 6
    X = mp.mpf(4)
    fq = lambda s: (mp.erf(mp.sqrt(s)) / mp.sqrt(s) - 1) if s > 0 else 2 / mp.sqrt(mp.pi) - 1
    q, eq = fit_rounded(fq, lambda s: 1 / (1 + fq(s)), mp.mpf(0), t * t, ds)
    m, em = fit_rounded(lambda v: mp.log(mp.erfc(t + v), 2), lambda v: mp.log(2) * mp.erfc(t + v),
                        mp.mpf(0), X - t, dl)
    # 2^r: the linear term (ln 2, whose rounding no higher term can absorb) first, then the rest.
    e, ee = fit_rounded(lambda r: mp.power(2, r), lambda r: 1 / mp.power(2, r), mp.mpf(-0.5), mp.mpf(0.5), de,
                        order=[1, 0] + list(range(2, de + 1)))
    print(f"// t = {t}: Q degree {ds} (relative error {mp.nstr(eq, 3)}), M degree {dl} (absolute error of erf "
          f"{mp.nstr(em, 3)}), 2^r degree {de} (relative error {mp.nstr(ee, 3)}); float32 coefficients")
    for name, cs in (('Q', q), ('M', m), ('P', e)):
        print(f"{name}: " + ", ".join(f"{v.hex()}" for v in cs))
        print(f"   " + ", ".join(f"{v!r}" for v in cs))


if __name__ == '__main__':
    main()
