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
"""
import struct
import sys

import mpmath as mp

mp.mp.dps = 25
GRID = 1200


def f32(x):
    return struct.unpack('f', struct.pack('f', float(x)))[0]


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
        ext, start = [], 0
        for i in range(1, len(grid) + 1):
            if i == len(grid) or (vals[i] > 0) != (vals[start] > 0):
                best = max(range(start, i), key=lambda k: abs(vals[k]))
                ext.append((grid[best], abs(vals[best])))
                start = i
        while len(ext) > n:
            ext.pop(0 if ext[0][1] < ext[-1][1] else -1)
        if len(ext) < n:
            break
        new = [x for x, _ in ext]
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


def main():
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
