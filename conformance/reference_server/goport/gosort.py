"""Go's `sort.Sort` (Go 1.24: pattern-defeating quicksort), step for step, for an order that matters only where
the `Less` given is not a strict weak order: goautoneg's Accept clauses (wire/goautoneg.py), whose `Less` puts
a concrete type before a wildcard whatever their q-values, so the result depends on which pairs Go compares.

Follows `src/sort/sort.go` (`Sort`, `xorshift`, `nextPowerOfTwo`) and `src/sort/zsortinterface.go` (`pdqsort`,
`insertionSort`, `heapSort`, `partition`, `partitionEqual`, `partialInsertionSort`, `breakPatterns`,
`choosePivot`, `median`, `reverseRange`). Up to 12 elements (every Accept header a client sends) it is the
insertion sort; longer lists take the whole algorithm, whose "random" pattern breaking is seeded by the length.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["sort"]

T = TypeVar("T")
_MASK = (1 << 64) - 1
_UNKNOWN, _INCREASING, _DECREASING = 0, 1, 2


class _Data:
    """`sort.Interface` over a list: `less(i, j)` and `swap(i, j)` by index."""

    __slots__ = ("items", "_less")

    def __init__(self, items: list[Any], less: Callable[[Any, Any], bool]):
        self.items = items
        self._less = less

    def less(self, i: int, j: int) -> bool:
        return self._less(self.items[i], self.items[j])

    def swap(self, i: int, j: int) -> None:
        items = self.items
        items[i], items[j] = items[j], items[i]


def sort(items: list[T], less: Callable[[T, T], bool]) -> None:
    """`sort.Sort`: `items` sorted in place by `less`, exactly as Go would leave them."""
    n = len(items)
    if n <= 1:
        return
    _pdqsort(_Data(items, less), 0, n, n.bit_length())


def _insertion_sort(d: _Data, a: int, b: int) -> None:
    for i in range(a + 1, b):
        j = i
        while j > a and d.less(j, j - 1):
            d.swap(j, j - 1)
            j -= 1


def _sift_down(d: _Data, lo: int, hi: int, first: int) -> None:
    root = lo
    while True:
        child = 2 * root + 1
        if child >= hi:
            return
        if child + 1 < hi and d.less(first + child, first + child + 1):
            child += 1
        if not d.less(first + root, first + child):
            return
        d.swap(first + root, first + child)
        root = child


def _heap_sort(d: _Data, a: int, b: int) -> None:
    first, hi = a, b - a
    for i in range((hi - 1) // 2, -1, -1):
        _sift_down(d, i, hi, first)
    for i in range(hi - 1, -1, -1):
        d.swap(first, first + i)
        _sift_down(d, 0, i, first)


def _pdqsort(d: _Data, a: int, b: int, limit: int) -> None:
    was_balanced = was_partitioned = True
    while True:
        length = b - a
        if length <= 12:
            _insertion_sort(d, a, b)
            return
        if limit == 0:
            _heap_sort(d, a, b)
            return
        if not was_balanced:
            _break_patterns(d, a, b)
            limit -= 1
        pivot, hint = _choose_pivot(d, a, b)
        if hint == _DECREASING:
            _reverse_range(d, a, b)
            pivot = (b - 1) - (pivot - a)
            hint = _INCREASING
        if was_balanced and was_partitioned and hint == _INCREASING and _partial_insertion_sort(d, a, b):
            return
        if a > 0 and not d.less(a - 1, pivot):
            a = _partition_equal(d, a, b, pivot)
            continue
        mid, was_partitioned = _partition(d, a, b, pivot)
        left, right = mid - a, b - mid
        threshold = length // 8
        if left < right:
            was_balanced = left >= threshold
            _pdqsort(d, a, mid, limit)
            a = mid + 1
        else:
            was_balanced = right >= threshold
            _pdqsort(d, mid + 1, b, limit)
            b = mid


def _partition(d: _Data, a: int, b: int, pivot: int) -> tuple[int, bool]:
    d.swap(a, pivot)
    i, j = a + 1, b - 1
    while i <= j and d.less(i, a):
        i += 1
    while i <= j and not d.less(j, a):
        j -= 1
    if i > j:
        d.swap(j, a)
        return j, True
    d.swap(i, j)
    i, j = i + 1, j - 1
    while True:
        while i <= j and d.less(i, a):
            i += 1
        while i <= j and not d.less(j, a):
            j -= 1
        if i > j:
            break
        d.swap(i, j)
        i, j = i + 1, j - 1
    d.swap(j, a)
    return j, False


def _partition_equal(d: _Data, a: int, b: int, pivot: int) -> int:
    d.swap(a, pivot)
    i, j = a + 1, b - 1
    while True:
        while i <= j and not d.less(a, i):
            i += 1
        while i <= j and d.less(a, j):
            j -= 1
        if i > j:
            return i
        d.swap(i, j)
        i, j = i + 1, j - 1


def _partial_insertion_sort(d: _Data, a: int, b: int) -> bool:
    i = a + 1
    for _ in range(5):  # maxSteps
        while i < b and not d.less(i, i - 1):
            i += 1
        if i == b:
            return True
        if b - a < 50:  # shortestShifting
            return False
        d.swap(i, i - 1)
        if i - a >= 2:
            for j in range(i - 1, 0, -1):
                if not d.less(j, j - 1):
                    break
                d.swap(j, j - 1)
        if b - i >= 2:
            for j in range(i + 1, b):
                if not d.less(j, j - 1):
                    break
                d.swap(j, j - 1)
    return False


def _break_patterns(d: _Data, a: int, b: int) -> None:
    length = b - a
    if length < 8:
        return
    random = length  # xorshift(length)
    modulus = 1 << length.bit_length()  # nextPowerOfTwo
    start = a + (length // 4) * 2 - 1
    for idx in range(start, start + 3):
        random ^= (random << 13) & _MASK
        random ^= random >> 7
        random ^= (random << 17) & _MASK
        other = random & (modulus - 1)
        if other >= length:
            other -= length
        d.swap(idx, a + other)


def _choose_pivot(d: _Data, a: int, b: int) -> tuple[int, int]:
    length = b - a
    swaps = [0]
    i, j, k = a + length // 4 * 1, a + length // 4 * 2, a + length // 4 * 3
    if length >= 8:
        if length >= 50:  # shortestNinther: Tukey's ninther
            i, j, k = (_median(d, x - 1, x, x + 1, swaps) for x in (i, j, k))
        j = _median(d, i, j, k, swaps)
    if swaps[0] == 0:
        return j, _INCREASING
    if swaps[0] == 12:  # maxSwaps
        return j, _DECREASING
    return j, _UNKNOWN


def _order2(d: _Data, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
    if d.less(b, a):
        swaps[0] += 1
        return b, a
    return a, b


def _median(d: _Data, a: int, b: int, c: int, swaps: list[int]) -> int:
    a, b = _order2(d, a, b, swaps)
    b, c = _order2(d, b, c, swaps)
    a, b = _order2(d, a, b, swaps)
    return b


def _reverse_range(d: _Data, a: int, b: int) -> None:
    i, j = a, b - 1
    while i < j:
        d.swap(i, j)
        i, j = i + 1, j - 1
