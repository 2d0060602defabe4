"""The driver's control instructions: tests and jumps, a stage's start, the end of a program.

They have no node of their own: the compiler (:class:`~mathkit.sim.program.Builder`) emits them for the
structure of a table — a :class:`~mathkit.play.actions.Test` guarding an action or an exit, a
:class:`~mathkit.play.tables.Stage`, a pick among a stage's spins.

Examples
--------
>>> JF.jump, GOTO.jump
(4, 1)
"""

from __future__ import annotations

from .base import Op, holds

__all__ = ["END", "GOTO", "JF", "JFR", "JTR", "OPS", "STAGE", "SWITCH"]

JFR = Op("C_JFR", "unless R[a] <b> c: pc = d", f"""
    y = R[a]
    if not {holds("y")}:
        pc = idd
""", jump=4)
JF = Op("C_JF", "unless vals[a] <b> c: pc = d", f"""
    y = vals[a]
    if not {holds("y")}:
        pc = idd
""", jump=4)
STAGE = Op("C_STAGE", "a stage starts: the round stops at the cap (and after MAX_STEPS stages)", """
    steps += 1
    if line_b + scat_b + other >= cap:  # the round is over once the cap is reached
        done = True
        break
    if steps > K.MAX_STEPS:
        acc[K.A_OVERFLOW] = 4
        done = True
        break
""")
GOTO = Op("C_GOTO", "pc = a", "pc = a", jump=1)
JTR = Op("C_JTR", "if R[a] <b> c: pc = d (a stage's exit on a register)", f"""
    y = R[a]
    if {holds("y")}:
        pc = idd
""", jump=4)
SWITCH = Op("C_SWITCH", "pc = tab[b + clamp(vals[a], c)]: the option a stage's pick chooses", """
    j = vals[a]
    pc = tab[ib + (0 if j < 0 else (ic - 1 if j >= ic else j))]
""")
END = Op("C_END", "the program is over (entry, variant or feature)", "pc = -1")

OPS = (JFR, JF, STAGE, GOTO, JTR, SWITCH, END)
"""The family's instructions, in the order the driver tests them."""
