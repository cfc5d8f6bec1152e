"""A tiny module under test for the JUnit corpus (scripts/ci-corpus/junit.sh)."""


def total(prices):
    return sum(p for p in prices)


def discount(price, percent):
    if percent > 100:
        raise ValueError(f"discount above 100%: {percent}")
    return price * (100 - percent) // 100
