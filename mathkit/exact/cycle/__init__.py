"""The full-cycle win distribution, exactly, by meeting in the middle.

Visiting every stop combination of a 5×3 game costs ~0.1 s per 80M stops
just to touch them.  Instead the reels are split into a prefix (reels
``0..k-1``) and a suffix (``k..R-1``):

1. For a line, the pay rules depend only on the symbol sequence.  The table
   ``fin[p, q]`` gives the line win of prefix sequence ``p`` followed by suffix
   sequence ``q`` (over each reel's own alphabet).  Prefixes whose rows are
   equal behave identically whatever follows: they form one *class*; a
   constant row means the line is already *dead* with a fixed win
   (:mod:`.classes`).
2. Every prefix stop combination reduces to ``(fixed win of dead lines,
   observation code, the alive lines with their classes)``; combinations with
   the same alive lines form a *group*, which keeps the histogram of its
   members' (fixed win, code).  Head combinations (reels ``0..k-2``) that leave
   the same lines open with the same sequences are passed over the last prefix
   reel once (:mod:`.prefix`).
3. Each group meets every suffix combination once.  On the middle reel ``k``
   only the stops where one of the group's alive lines goes on do work: one line
   adds its finishing histogram over the rest ``k+1..R-1``, several add their
   commonest finish and the few rest combinations where one pays otherwise; the
   other stops add the rest's key histogram (:mod:`.finish`, :mod:`.combine`).

The result is the exact joint count of every ``(line win, observation code)``
over the cycle, in integers.  The reels come as stop tables (:mod:`mathkit.spin.stops`):
each stop's column, weight, observation digits (packed into one code, each digit
with the radix of the largest total it reaches) and extra win (added to the
fixed win), so overlays, remaps, heights and restrictions need nothing here.
Ways games use the same plan with per-entry ways products in place of lines.
The drivers (:mod:`.lines`, :mod:`.ways`) are plain numpy; the compiled kernels
come through :mod:`.kernels` (an ahead-of-time extension, or numba's JIT).
"""

from .inputs import split_point
from .lines import DENSE_LIMIT, I64_SAFE, JointCounts, joint_counts
from .ways import joint_counts_ways

__all__ = ["DENSE_LIMIT", "I64_SAFE", "JointCounts", "joint_counts", "joint_counts_ways", "split_point"]
