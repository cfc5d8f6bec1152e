"""A tiny module the tests exercise; some of it is deliberately wrong."""


def total(prices):
    return sum(prices)


def parse_quantity(text):
    # Deliberately fragile: raises ValueError for non-numeric input.
    return int(text)


def lookup(table, key):
    return table[key]
