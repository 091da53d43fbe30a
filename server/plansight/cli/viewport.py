"""Which lines of a list fit in a number of rows, kept around the lines that matter."""

from __future__ import annotations


def visible_slice(heights: list[int], rows: int, focus: tuple[int, int]) -> tuple[int, int]:
    """The lines `[start, end)` to show in `rows` rows, where line i takes `heights[i]` rows.

    Everything shows when it fits. Otherwise the `focus` lines show (cut from their end
    only when they alone overflow), with about a third of the room before them for what
    led there and the rest after; one row each is kept for a marker above and below
    when lines are hidden there."""
    n = len(heights)
    if sum(heights) <= rows:
        return 0, n
    f0 = max(0, min(focus[0], n - 1))
    f1 = max(f0 + 1, min(focus[1], n))

    def fits(start: int, end: int) -> bool:
        return sum(heights[start:end]) + (start > 0) + (end < n) <= rows

    start, end = f0, f1
    while end - start > 1 and not fits(start, end):
        end -= 1
    before = max(0, rows // 3)
    while start > 0 and sum(heights[start - 1 : f0]) <= before and fits(start - 1, end):
        start -= 1
    while end < n and fits(start, end + 1):
        end += 1
    while start > 0 and fits(start - 1, end):
        start -= 1
    return start, end
