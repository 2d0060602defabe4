"""The driver's spin instructions: forced cells, a stage's spin, its pay, a spin played as the base game.

They have no node of their own: the compiler (:class:`~mathkit.sim.program.Builder`) emits them for a
:class:`~mathkit.play.tables.Stage`'s spins and a variant's forced cells
(:class:`~mathkit.play.tables.Force`), and :data:`SHOW` for a :class:`~mathkit.play.actions.Show`.
A spin instruction ends with ``break`` to hand its stops (or the window its forced cells changed) to the
line pay at the top of the driver's loop; the program goes on after it.

Examples
--------
>>> [op.name for op in OPS][:4]
['X_PAYSPINK', 'X_FORCE', 'X_SPIN', 'X_REBASE']
"""

from __future__ import annotations

from .base import REFILL, WINDOW, Op, snippet

__all__ = ["FORCE", "LABEL", "NEST", "OPS", "OPT", "PAYSPIN", "PAYSPINK", "REBASE", "SHOW", "SPIN", "SPINT"]


def _forced(*, show: bool, always: bool) -> str:
    """Apply the forced cells to the window (bit ``reel·height + row``) and observe it again; ``show``: only
    observed (no pay changes); ``always``: the spin is valued even with no forced cell."""
    valued = "" if show else "in_window = True"
    leave = "break  # value the lines, then go on" if always else ("" if show else """
if forced != 0:
    break  # value the lines, then go on""")
    return snippet("if nf > 0:", (WINDOW, 4), """
forced = 0
for f in range(nf):
    m = fm[f]
    forced |= m
    while m != 0:
        low = m & -m
        cell = 0
        y = low - 1
        while y != 0:
            y &= y - 1
            cell += 1
        r = cell // height
        q = cell - r * height
        if r < n_reels and q < rows[k, r]:
            W[r, q] = fs[f]
        m ^= low
nf = 0
if forced != 0:
    c = 0
    for r in range(n_reels):
        for q in range(rows[k, r]):
            c += symcode[W[r, q]]""", (valued, 4), leave)


_SPIN = snippet("""
if a < 0:  # a height no rule gives lines for
    acc[K.A_OVERFLOW] = 5
    done = True
    break
k = a
opt = ib
""", REFILL, """
free_h, ws = _draw(free_buf, free_h, k, mod, mode, lut, cum, word, spins, 1)
if free_h > free_n:
    acc[K.A_OVERFLOW] = 2
at = 1
c = ws & _LOW24
e = entry_t[k, (ws >> 24) & _LOW20]  # (the remainder table is for base spins: see models.py)
acc[feat[cur, 4]] += 1
fspins += 1
w_ready = False
want = 1
""", _forced(show=False, always=True))

PAYSPINK = Op("X_PAYSPINK", "the feature's win += line × a + scatter × b (constant multipliers; components c, d)", """
    x = spin_w * a
    y = (ptab[c] >> 16) * ib
    cw[ic] += x
    cw[idd] += y
    other += x + y
""")
FORCE = Op("X_FORCE", "the next spin shows symbol b on the cells of mask vals[a]", """
    fm[nf] = vals[a]
    fs[nf] = ib
    nf += 1
""")
SPIN = Op("X_SPIN", "spin model a (option b): stops from the feature stream, forced cells, the window observed",
          _SPIN)
REBASE = Op("X_REBASE", "the base spin's window again, with the forced cells",
            snippet("want = 2", _forced(show=False, always=False)))
SPINT = Op("X_SPINT", "X_SPIN of model tab[b + j], option tab[b + c + j], j = clamp(vals[a] (d: R[a]), c)", snippet("""
    j = R[a] if idd != 0 else vals[a]
    j = 0 if j < 0 else (ic - 1 if j >= ic else j)
    a = tab[ib + j]
    ib = tab[ib + ic + j]
""", _SPIN))
SHOW = Op("X_SHOW", "the current window shows the forced cells (no spin, no pay): observed again",
          _forced(show=True, always=False))
PAYSPIN = Op("X_PAYSPIN", "the feature's win += line × vals[a] + scatter × vals[b] (components c, d)", """
    x = spin_w * vals[a]
    y = (ptab[c] >> 16) * vals[ib]
    cw[ic] += x
    cw[idd] += y
    other += x + y
""")
OPT = Op("V_OPT", "vals[a] = the option the stage's spin played", "vals[a] = opt")
NEST = Op("X_NEST", "the spin of feature a is played as the base game: the entries of the other features it starts",
          """
    nflags = (ptab[c] & 0xFFFF) & ~(1 << a)
    if nflags != 0:
        nest_ret = pc
        nctx = a + 1
        nj = -1
        pc = -1
""")
LABEL = Op("X_LABEL", "the base spin's line and scatter wins to the components at acc[a], acc[b]", """
    for slot, y in ((a, line_b), (ib, scat_b)):
        if y != 0:
            acc[slot] += y
            square(acc, slot + 1, y)
    other += line_b + scat_b
    line_b = scat_b = 0
""")

OPS = (PAYSPINK, FORCE, SPIN, REBASE, SPINT, SHOW, PAYSPIN, OPT, NEST, LABEL)
"""The family's instructions."""
