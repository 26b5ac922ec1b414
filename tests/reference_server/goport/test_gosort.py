"""`gosort.py`: Go's `sort.Sort`, whose result for an order that is not a strict weak one depends on the pairs it
compares. The expected orders were read from Go's own `sort.Sort` (insertion sort up to 12 elements, pdqsort
beyond)."""
from __future__ import annotations

from conformance.reference_server.goport import gosort


def odd_first(a: int, b: int) -> bool:
    """Not a strict weak order: every odd number is "less" than every even one, and among the odd ones the
    greater is less."""
    return a % 2 == 1 and (b % 2 == 0 or a > b)


def test_insertion_sort_up_to_twelve() -> None:
    items = [4, 1, 6, 3, 8, 5]
    gosort.sort(items, odd_first)
    assert items == [5, 3, 1, 4, 6, 8]


def test_a_total_order_sorts_as_python_does() -> None:
    items = [(i * 7919) % 101 for i in range(100)]
    gosort.sort(items, lambda a, b: a < b)
    assert items == sorted(items)
